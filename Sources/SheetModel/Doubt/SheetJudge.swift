import Foundation
import Synchronization

/// A sheet judged: each field's value, confidence, doubts and flag, the rules its ink breaks, and what the
/// model of doubt made of them.
public struct SheetJudgement: Sendable {
    /// Each field as shown: the weighed value and probability (`SheetPosterior`), flagged by `Flagging`.
    public var fields: [(id: String, reading: FieldReading)]
    /// The rules the sheet breaks as its ink reads: what the paper says, whatever the suggestion mends.
    public var inkFailures: [RuleFailure]
    /// The error rules the values shown still break (a field held in one is flagged).
    public var stillFailing: [RuleFailure]
    public var outcome: SuggestionOutcome

    /// A person must look at the sheet: a field is flagged or its ink breaks a rule.
    public var needsReview: Bool { fields.contains { $0.reading.flagged } || !inkFailures.isEmpty }
}

/// The one judging stage over a sheet's readings: the sheet's rules weighed by the one model of doubt
/// (`SheetPosterior`), then every flag set by the one line (`Flagging`). Scan judges a sheet as read, eval
/// through scan, and review again after each change a person makes (their values settled), so a field is
/// judged the same way wherever it is shown.
public struct SheetJudge {
    public let template: SheetTemplate
    /// The template's rules, parsed once per template version in the process (`RuleBook`).
    public let rules: ParsedRules
    /// The review line: a field under it is flagged.
    public let line: Double
    /// The day the sheet is judged on: a date after it breaks a not-future rule.
    public let today: Date
    /// The chance the paper itself breaks a rule, in place of the model's (`SheetPosterior.slip`); nil keeps it.
    public var slip: Double?

    public init(template: SheetTemplate, line: Double = ReviewLine.standard, today: Date = Date(), slip: Double? = nil) {
        self.template = template
        self.rules = RuleBook.shared.rules(of: template)
        self.line = line
        self.today = today
        self.slip = slip
    }

    /// The readings judged: weighed together by the rules, then flagged.
    /// - Parameters:
    ///   - settled: fields a person set; their values are certain and not searched.
    ///   - budget: the search's budget in place of the model's (review's person is waiting).
    public func judge(_ readings: [(id: String, reading: FieldReading)], settled: Set<String> = [], budget: Int? = nil) -> SheetJudgement {
        var posterior = SheetPosterior(search: SuggestionSearch(template: template, rules: rules, today: today))
        if let slip { posterior.slip = slip }
        if let budget { posterior.budget = budget }
        let weighed = posterior.weigh(readings, settled: settled)
        let inkFailures = failures(Dictionary(uniqueKeysWithValues: readings.map { ($0.id, $0.reading.value) }))
        let stillFailing = failures(Dictionary(uniqueKeysWithValues: weighed.readings.map { ($0.id, $0.reading.value) }))
            .filter { $0.severity == .error }
        let flagging = Flagging(line: line)
        let fields = weighed.readings.map { field in
            (id: field.id, reading: flagging.flag(field.reading, failingRules: stillFailing.filter { $0.fields.contains(field.id) }.map(\.rule)))
        }
        return SheetJudgement(fields: fields, inkFailures: inkFailures, stillFailing: stillFailing, outcome: weighed.outcome)
    }

    /// The rules these values break, warnings included.
    public func failures(_ values: [String: FieldValue]) -> [RuleFailure] {
        RuleCheck(template: template, rules: rules, values: values, today: today).failures()
    }

    /// The error rules that still fail once `suggestion` is taken on `values`: those no plausible
    /// alternative mends (`SuggestionOutcome.partial`).
    public func leftBroken(by suggestion: Suggestion, values: [String: FieldValue]) -> [String] {
        var taken = values
        for change in suggestion.changes { taken[change.field] = change.to }
        return failures(taken).filter { $0.severity == .error }.map(\.rule)
    }
}

/// Each template version's rules parsed once for the whole process: scan's workers and review share them.
/// A template is known by its id and version, and kept with its rules so that another template under the
/// same id and version (a draft being named, a test's variant) is parsed for itself, not given these.
public final class RuleBook: Sendable {
    public static let shared = RuleBook()
    private let parsed = Mutex<[String: (template: SheetTemplate, rules: ParsedRules)]>([:])

    public func rules(of template: SheetTemplate) -> ParsedRules {
        let key = "\(template.id)@\(template.version)"
        if let kept = parsed.withLock({ $0[key] }), kept.template == template { return kept.rules }
        // Parsed outside the lock: two workers meeting a new template at once parse it twice, harmlessly.
        let rules = ParsedRules(template)
        parsed.withLock { $0[key] = (template, rules) }
        return rules
    }
}
