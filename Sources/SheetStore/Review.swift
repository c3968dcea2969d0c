import Foundation
import SheetModel

/// One sheet as the review screen shows it. Readings are never changed: `fields` pairs each with its
/// live correction, and `value` is what counts now.
public struct SheetReview: Sendable, Equatable {
    public var sheet: SheetSummary
    /// Bumped by every review write; writes name the revision they saw (optimistic concurrency).
    public var revision: Int
    public var fields: [ReviewField]
    /// All corrections, undone ones included, oldest first.
    public var corrections: [Correction]
    /// As stored at scan time (from the readings as read).
    public var suggestions: [Suggestion]
    public var gameLog: GameLogSummary?
    /// The latest decision, if a reviewer approved or rejected the sheet.
    public var decision: ReviewDecision?

    /// Field id → its current value: the latest live correction, else the reading.
    public var values: [String: FieldValue] { Dictionary(fields.map { ($0.field, $0.value) }, uniquingKeysWith: { a, _ in a }) }
}

public struct ReviewField: Sendable, Equatable {
    public var stored: StoredReading
    /// The latest correction not undone, if any.
    public var correction: Correction?
    public var field: String { stored.field }
    public var value: FieldValue { correction?.newValue ?? stored.reading.value }
}

public struct UndoRequest: Sendable, Equatable {
    public var sheetID: Int64
    public var expectedRevision: Int?
    public var reviewer: String
    public var at: Date
    public init(sheetID: Int64, expectedRevision: Int?, reviewer: String, at: Date) {
        self.sheetID = sheetID; self.expectedRevision = expectedRevision; self.reviewer = reviewer; self.at = at
    }
}

public struct SheetApproval: Sendable, Equatable {
    public var sheetID: Int64
    public var expectedRevision: Int?
    public var reviewer: String
    public var at: Date
    /// The game log made from the current (corrected) values; nil when the template has none.
    public var gameLog: GameLogDraft?
    /// Rules that still fail on the current values.
    public var ruleFailures: [RuleFailure]
    /// Required (non-empty) when `ruleFailures` is not empty.
    public var overrideReason: String?
    public init(sheetID: Int64, expectedRevision: Int?, reviewer: String, at: Date, gameLog: GameLogDraft?,
                ruleFailures: [RuleFailure] = [], overrideReason: String? = nil) {
        self.sheetID = sheetID; self.expectedRevision = expectedRevision; self.reviewer = reviewer; self.at = at
        self.gameLog = gameLog; self.ruleFailures = ruleFailures; self.overrideReason = overrideReason
    }
}

public struct SheetRejection: Sendable, Equatable {
    public var sheetID: Int64
    public var expectedRevision: Int?
    public var reviewer: String
    public var at: Date
    public var reason: String
    public init(sheetID: Int64, expectedRevision: Int?, reviewer: String, at: Date, reason: String) {
        self.sheetID = sheetID; self.expectedRevision = expectedRevision; self.reviewer = reviewer; self.at = at; self.reason = reason
    }
}

public struct ReviewDecision: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable { case approved, rejected }
    public var id: Int64
    public var sheetID: Int64
    public var kind: Kind
    public var reviewer: String
    public var at: Date
    /// The reject reason, or the override reason of an approval over failing rules.
    public var reason: String?
    /// Rules failing on the values approved (empty for a clean approval).
    public var ruleFailures: [RuleFailure]
    /// The sheet's revision the decision was taken on.
    public var revision: Int
}
