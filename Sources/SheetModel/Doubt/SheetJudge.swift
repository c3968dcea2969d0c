import Foundation

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
    /// Each field weighed alone, before the rules (`SheetJudge.weighedAlone`): what
    /// `eval --fit-calibration` fits the readers' tables on. Empty when judged from stored readings.
    public var weighedAlone: [(id: String, reading: FieldReading)] = []

    /// A person must look at the sheet: a field is flagged or its ink breaks a rule.
    public var needsReview: Bool { fields.contains { $0.reading.flagged } || !inkFailures.isEmpty }
}

/// The one judging stage over a sheet: what its readers measured (`SheetEvidence`) weighed by what the club
/// knows (its names and players, its season's game days, what each reader's confidence earned), then by the
/// sheet's rules through the one model of doubt (`SheetPosterior`), and every flag set by the one line
/// (`Flagging`). Scan judges a sheet as read, eval through scan, and review again after each change a person
/// makes (their values settled), so a field is judged the same way wherever it is shown. Its numbers are
/// in `JudgingPolicy`.
public struct SheetJudge: Sendable {
    public let template: SheetTemplate
    /// The template's rules, parsed once per template version in the process (`RuleBook`).
    public let rules: ParsedRules
    public let policy: JudgingPolicy
    /// Each of the template's field ids by its place: readings come one per field, in the template's order.
    let fieldIndex: [String: Int]
    /// The day the sheet is judged on: a date after it breaks a not-future rule, and a handwritten date long
    /// before it is unlikely (`SeasonPrior`).
    public let today: Date
    /// What each reader's confidence is worth for fields no rule weighs (`.identity` keeps the readers' own).
    public var calibration = ReaderCalibration.identity
    /// The club's names: handwritten names, and a box score's players, are weighed against them. Nil: none
    /// known, every handwritten name is new.
    public var names: NameReadingModel?
    /// The games the store holds, by athlete: a handwritten date is weighed against its athlete's season.
    public var games = SeasonGames()

    public init(template: SheetTemplate, policy: JudgingPolicy = .standard, today: Date = Date()) {
        self.template = template
        self.rules = RuleBook.shared.rules(of: template)
        self.fieldIndex = Dictionary(uniqueKeysWithValues: template.fields.enumerated().map { ($1.id, $0) })
        self.policy = policy
        self.today = today
    }

    /// The sheet judged from its evidence: each field weighed alone by what the club knows
    /// (`weighedAlone`), then all together by the rules.
    public func judge(_ evidence: SheetEvidence) -> SheetJudgement {
        let alone = weighedAlone(evidence)
        var judgement = judge(alone)
        judgement.weighedAlone = alone
        return judgement
    }

    /// The readings judged: weighed together by the rules, then flagged.
    /// - Parameter settled: fields a person set; their values are certain and not searched.
    public func judge(_ readings: [(id: String, reading: FieldReading)], settled: Set<String> = []) -> SheetJudgement {
        let posterior = SheetPosterior(search: SuggestionSearch(template: template, rules: rules, today: today), sums: policy.sums)
        let weighed = posterior.weigh(readings, settled: settled)
        let inkFailures = failures(Dictionary(uniqueKeysWithValues: readings.map { ($0.id, $0.reading.value) }))
        let stillFailing = failures(Dictionary(uniqueKeysWithValues: weighed.readings.map { ($0.id, $0.reading.value) }))
            .filter { $0.severity == .error }
        var shown = weighed.readings
        holdCountsWithOnlySpentSums(&shown, stillFailing: Set(stillFailing.map(\.rule)), settled: settled)
        let flagging = Flagging(line: policy.reviewLine)
        let fields = shown.map { field in
            (id: field.id, reading: flagging.flag(field.reading, failingRules: stillFailing.filter { $0.fields.contains(field.id) }.map(\.rule)))
        }
        return SheetJudgement(fields: fields, inkFailures: inkFailures, stillFailing: stillFailing, outcome: weighed.outcome)
    }

    /// A stored sheet judged again after a person's changes (review): each field weighed, as when the sheet
    /// was read, from its ink's own reading rather than what the rules made of it, and each value a person
    /// set certain (no alternatives, no doubt, nothing to repair). Its `inkFailures` are those of the values
    /// judged, the person's among them.
    /// - Parameter settled: field id → the value a person set.
    public func rejudge(_ stored: [(id: String, reading: FieldReading)], settled: [String: FieldValue]) -> SheetJudgement {
        let readings = stored.map { id, stored -> (id: String, reading: FieldReading) in
            var reading = stored
            reading.value = stored.inkFirstChoice
            reading.confidence = stored.confidenceAlone
            reading.inkValue = nil
            reading.inkConfidence = nil
            // Its flag, and the doubts the flag named, are judged again.
            reading.flagged = false
            reading.doubts.removeAll {
                switch $0 {
                case .inFailingRule, .underTheLine, .noSumVouches: true
                default: false
                }
            }
            if let value = settled[id] {
                // What was doubted of the ink is settled by the person's word.
                reading.value = value
                reading.alternatives = []
                reading.confidence = 100
                reading.doubts = []
            }
            return (id, reading)
        }
        return judge(readings, settled: Set(settled.keys))
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
/// A lock rather than `Synchronization.Mutex`, which needs macOS 15 and the package supports 13.
public final class RuleBook: @unchecked Sendable {
    public static let shared = RuleBook()
    private let lock = NSLock()
    private var parsed: [String: (template: SheetTemplate, rules: ParsedRules)] = [:]

    public func rules(of template: SheetTemplate) -> ParsedRules {
        let key = "\(template.id)@\(template.version)"
        if let kept = lock.withLock({ parsed[key] }), kept.template == template { return kept.rules }
        // Parsed outside the lock: two workers meeting a new template at once parse it twice, harmlessly.
        let rules = ParsedRules(template)
        lock.withLock { parsed[key] = (template, rules) }
        return rules
    }
}
