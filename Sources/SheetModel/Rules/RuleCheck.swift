/// A rule the sheet's readings break, in words a person understands.
public struct RuleFailure: Sendable, Equatable, Codable {
    /// The rule's id in the template.
    public let rule: String
    /// The template's message for it.
    public let message: String
    /// The numbers seen: "q2.saves 7 + q2.goals 3 = 10, q2.shots 11".
    public let detail: String
    /// The fields the rule reads.
    public let fields: [String]
    /// The rule's severity in the template.
    public let severity: RuleSeverity

    public init(rule: String, message: String, detail: String, fields: [String], severity: RuleSeverity = .error) {
        self.rule = rule; self.message = message; self.detail = detail; self.fields = fields; self.severity = severity
    }

    /// Failures stored before rules had a severity decode as errors.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(rule: try c.decode(String.self, forKey: .rule), message: try c.decode(String.self, forKey: .message),
                  detail: try c.decode(String.self, forKey: .detail), fields: try c.decode([String].self, forKey: .fields),
                  severity: try c.decodeIfPresent(RuleSeverity.self, forKey: .severity) ?? .error)
    }
}

/// A template's rules, parsed once: a scanner keeps one per template rather than parsing every rule
/// for every sheet.
public struct ParsedRules: Sendable {
    /// Each rule with its expression, or nil when it does not parse (`template check` reports why).
    public let rules: [(spec: RuleSpec, expression: Expression?)]
    /// The ids of the fields whose values some rule weighs (`Expression.valueReferences`).
    public let valuesChecked: Set<String>

    public init(_ template: SheetTemplate) {
        rules = (template.rules ?? []).map { ($0, try? RuleParser.parse($0.check)) }
        valuesChecked = Set(rules.compactMap(\.expression).flatMap { Expression.ids($0.valueReferences, in: template.fields) })
    }
}

/// Runs a template's rules over a sheet's readings.
public struct RuleCheck {
    public let template: SheetTemplate
    public let evaluator: RuleEvaluator
    private let parsed: ParsedRules

    public init(template: SheetTemplate, rules: ParsedRules? = nil, values: [String: FieldValue], today: Date = Date()) {
        self.template = template
        self.parsed = rules ?? ParsedRules(template)
        self.evaluator = RuleEvaluator(values: values, fields: template.fields, today: today)
    }

    /// Every rule that does not hold (or cannot be evaluated on these readings).
    public func failures() -> [RuleFailure] {
        parsed.rules.compactMap { spec, expression -> RuleFailure? in
            guard let expression else {
                return RuleFailure(rule: spec.id, message: spec.message, detail: "the rule cannot be parsed", fields: [],
                                   severity: spec.effectiveSeverity)
            }
            let fields = expandedFields(expression)
            do {
                if try evaluator.evaluate(expression) == .boolean(true) { return nil }
                return RuleFailure(rule: spec.id, message: spec.message, detail: detail(expression), fields: fields,
                                   severity: spec.effectiveSeverity)
            } catch {
                return RuleFailure(rule: spec.id, message: spec.message, detail: "\(error)", fields: fields,
                                   severity: spec.effectiveSeverity)
            }
        }
    }

    private func expandedFields(_ e: Expression) -> [String] { e.fieldIDs(in: template.fields) }

    /// The values behind a failed rule: both sides of a comparison with their totals, else the fields.
    func detail(_ e: Expression) -> String {
        if case .binary(let op, let a, let b) = e, op.isComparison {
            return "\(side(a)), \(side(b))"
        }
        return expandedFields(e).map { "\($0) \(show($0))" }.joined(separator: ", ")
    }

    private func side(_ e: Expression) -> String {
        let text = render(e)
        switch e {
        case .field, .number: return text
        default:
            guard let value = try? evaluator.evaluate(e) else { return text }
            switch value {
            case .integer(let n): return "\(text) = \(n)"
            case .boolean(let b): return "\(text) = \(b)"
            }
        }
    }

    private func render(_ e: Expression) -> String {
        switch e {
        case .number(let n): String(n)
        case .field(let id): "\(id) \(show(id))"
        case .negate(let inner): "-\(render(inner))"
        case .not(let inner): "!\(render(inner))"
        case .binary(let op, let a, let b): "\(render(a)) \(op.rawValue) \(render(b))"
        case .call(let name, let args): "\(name)(\(args.map { if case .field(let id) = $0 { id } else { render($0) } }.joined(separator: ", ")))"
        }
    }

    private func show(_ id: String) -> String {
        switch evaluator.values[id] ?? .empty {
        case .empty: "empty"
        case .boolean(let b): b ? "checked" : "unchecked"
        default: (evaluator.values[id] ?? .empty).description
        }
    }
}

import Foundation

extension Expression {
    /// The ids of the fields the expression reads, patterns (`conference.*`) expanded over `fields`.
    public func fieldIDs(in fields: [FieldSpec]) -> [String] {
        Self.ids(fieldReferences, in: fields)
    }

    /// Field references (ids and patterns) as ids, patterns expanded over `fields`, each once.
    static func ids(_ references: [String], in fields: [FieldSpec]) -> [String] {
        var seen: [String] = []
        for ref in references {
            let ids = ref.contains("*") ? fields.map(\.id).filter { RuleEvaluator.matches($0, ref) } : [ref]
            for id in ids where !seen.contains(id) { seen.append(id) }
        }
        return seen
    }
}

extension FieldReading {
    /// Flags a reading because a rule it is in does not add up (or adds up only with a value the sums
    /// chose for another of its numbers), with `note` saying which, and puts its confidence under the
    /// review line `line`. One of the rule's numbers is wrong and which one is open, so however clearly
    /// this one was written it is not a number to take unseen — and the confidence says so, as the flag
    /// does: a confidence at or over the line means "right", not "read clearly" (a sure number in a broken
    /// sum is the misread about 1 time in 10). A reading already under the line keeps its own confidence,
    /// which tells the likelier misread apart.
    public mutating func doubt(becauseOf note: String, line: Double) {
        flagged = true
        notes.append(note)
        let alone = confidence
        confidence = min(confidence, max(0, line - 1))
        if alone - confidence >= 1 {
            notes.append("confidence \(Int(confidence.rounded())) with the rule broken, \(Int(alone.rounded())) \(Self.aloneSuffix)")
        }
    }

    /// Takes the value a suggestion gives this number in place of the one the ink gave: flagged, with a
    /// note that keeps what the digits read (the value read, `text`, stays as recognised). The note begins
    /// as a value read from the sums does (`SumCorroboration.readFromSums`), and like one, it is a person's
    /// to confirm before the sheet is approved. Its confidence is just under the line: the sums make the
    /// value the likeliest (every value filled in on the eval sets was right when measured), but
    /// it is not what the ink said, and a confidence of 70 or more means a number to take as read.
    public mutating func fillIn(_ change: Suggestion.Change, line: Double) {
        guard change.to != value else { return }
        // A value the sums had already chosen keeps the digits' reading in that earlier note.
        let before = SumCorroboration.readFromSums(self) ? "the sums had chosen \(value.inNotes)"
            : "\(SumCorroboration.readFromSumsNote) \(value.inNotes) (confidence \(Int(confidenceBeforeRuleDoubt.rounded())))"
        notes.append("\(before); \(Self.filledInNote) \(change.to.inNotes)")
        value = change.to
        flagged = true
        confidence = max(0, line - 1)
    }

    /// True when the scan filled the value in from the sheet's suggestion (`fillIn`).
    public var filledInFromSuggestion: Bool { notes.contains { $0.contains(Self.filledInNote) } }

    /// What the note of a value filled in from a suggestion says after the digits' reading.
    public static let filledInNote = "filled in from the sheet's suggestion:"

    /// Why a flagged reading is flagged, for `statsheet eval` to say what its flags are made of.
    public enum FlagCause: String, CaseIterable, Sendable {
        /// The value is not the ink's: the sums chose it, or the scan filled it in from the suggestion.
        case fromSums = "from_sums"
        /// The reader alone was under the line: an unclear digit, a struck-out number's correction, a number
        /// no rule checks read under the stricter line such numbers keep.
        case unsureInk = "unsure_ink"
        /// The reader was sure, but a rule the number is in broke, or the sums made another value likelier.
        case sureButDoubted = "sure_but_doubted"
        /// Read at or over the line and flagged all the same (no path flags a number so today).
        case reader = "reader"

        /// What `statsheet eval` prints for it.
        public var label: String {
            switch self {
            case .fromSums: "value from the sums, not the ink"
            case .unsureInk: "the reader unsure on its own"
            case .sureButDoubted: "read sure; a rule broke or the sums doubt it"
            case .reader: "read sure; flagged by the reader"
            }
        }
    }

    /// The cause of this reading's flag (nil when it is not flagged), the first of `FlagCause`'s that
    /// applies, in its order: a value the ink did not give, whatever else is true of it; then the
    /// reader's own confidence under the line; then a sure reading a broken rule or the sums put under it.
    /// The reader's own confidence is the one the notes keep from before the sums or a broken rule moved
    /// it, rounded there: a 69.6 the sums moved counts as 70.
    public func flagCause(line: Double) -> FlagCause? {
        guard flagged else { return nil }
        if SumCorroboration.readFromSums(self) { return .fromSums }
        let alone = SumCorroboration.confidenceAlone(self) ?? confidenceBeforeRuleDoubt
        if alone < line { return .unsureInk }
        return confidence < line ? .sureButDoubted : .reader
    }

    private static let brokenRuleInfix = " with the rule broken, "
    private static let aloneSuffix = "alone"

    /// The confidence the reading had before a broken rule put it under the line (`doubt`, whose note
    /// keeps it, rounded), else its confidence. The suggestion search weighs the reader's own confidence:
    /// the cap says the rule is broken, which the search weighs itself.
    /// A value the digits did not read (the sums' or a suggestion's) has no such confidence: its own stands.
    public var confidenceBeforeRuleDoubt: Double {
        guard !SumCorroboration.readFromSums(self) else { return confidence }
        if let alone = aloneConfidence(inNoteWith: Self.brokenRuleInfix) { return max(confidence, alone) }
        return confidence
    }

    /// The confidence a note "confidence N`infix`M alone" keeps as M, from the first such note.
    func aloneConfidence(inNoteWith infix: String) -> Double? {
        for note in notes where note.hasPrefix("confidence ") && note.hasSuffix(" " + Self.aloneSuffix) {
            guard let found = note.range(of: infix) else { continue }
            if let alone = Double(note[found.upperBound...].dropLast(Self.aloneSuffix.count + 1)) { return alone }
        }
        return nil
    }
}
