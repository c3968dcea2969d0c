import SheetModel
import SheetStore

/// Everything the review screen shows, as a plain value: `ReviewSession` changes it, `ReviewScreen`
/// draws it. Tests and the benchmark build one directly.
public struct ReviewState: Sendable {
    public enum Mode: Sendable, Equatable {
        case browsing
        /// Typing a new value for the current field (text typed so far).
        case editing(String)
        /// Typing why the sheet is rejected.
        case rejecting(String)
        /// Typing why the sheet is approved although rules fail, or numbers the ink did not give are
        /// unconfirmed (`unconfirmedNotFromInk`).
        case overriding(String)
        case help
    }

    public var reviewer: String
    /// Sheets waiting for a decision, oldest first, as the store had them at the last reload.
    public var queue: [SheetSummary] = []
    /// Index in `queue` of the sheet on screen.
    public var position = 0
    public var review: SheetReview?
    /// The sheet's template; nil when it is no longer installed (rules then come from the scan).
    public var template: SheetTemplate?
    /// Index in `review.fields` of the current field.
    public var fieldIndex = 0
    /// Rules failing on the current values (re-run after every change).
    public var failures: [RuleFailure] = []
    /// Alternatives that would make every rule hold, for `s`.
    public var suggestion: Suggestion?
    public var suggestionNote: String?
    /// The current field's cell.
    public var image: CellPixels?
    public var mode: Mode = .browsing
    /// What the last action did, or why it did nothing.
    public var message: String?
    public var messageIsWarning = false

    public init(reviewer: String) { self.reviewer = reviewer }

    public var currentField: ReviewField? {
        guard let fields = review?.fields, fields.indices.contains(fieldIndex) else { return nil }
        return fields[fieldIndex]
    }

    public var currentSpec: FieldSpec? { currentField.flatMap { template?.field($0.field) } }

    /// A flagged field is settled once a reviewer has corrected or accepted it.
    public static func isSettled(_ field: ReviewField) -> Bool { field.correction != nil }

    /// Fields holding a number the ink did not give (read from the sums, or the suggestion filled in by the
    /// scan) that nobody has confirmed or changed: approving over them asks for a reason.
    public var unconfirmedNotFromInk: [String] {
        (review?.fields ?? []).filter { $0.stored.reading.inkValue != nil && !Self.isSettled($0) }.map(\.field)
    }

    /// Fields a failing rule reads.
    public var failingFields: Set<String> { Set(failures.flatMap(\.fields)) }
}
