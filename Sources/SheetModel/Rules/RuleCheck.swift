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
    /// The ids of the fields whose values some error rule weighs (`Expression.valueReferences`): the numbers
    /// `SheetPosterior` weighs. (A warning describes unusual play, not a misread.)
    public let valuesChecked: Set<String>
    /// The ids of the fields each rule reads (`rules`' order; none for a rule that does not parse): matching a
    /// box score's patterns against its 200 field ids for every sheet cost a tenth of its time.
    let fieldIDs: [[String]]
    /// Every rule's field-id patterns expanded (`RuleEvaluator.expansions`), and the fields' kinds by id.
    let expansions: [String: [String]]
    let kinds: [String: FieldKind]
    /// Each error rule that is a sum (`a + b + … == c`) over two or more counts, by its id, with those counts: what
    /// vouches for a count when it holds as read (`SheetJudge.holdCountsWithOnlySpentSums`).
    let sums: [(rule: String, counts: [String])]

    public init(_ template: SheetTemplate) {
        rules = (template.rules ?? []).map { ($0, try? RuleParser.parse($0.check)) }
        valuesChecked = Set(rules.filter { $0.spec.effectiveSeverity == .error }.compactMap(\.expression)
            .flatMap { Expression.ids($0.valueReferences, in: template.fields) })
        fieldIDs = rules.map { $0.expression?.fieldIDs(in: template.fields) ?? [] }
        expansions = RuleEvaluator.expansions(of: rules.compactMap(\.expression).flatMap(\.fieldReferences), in: template.fields)
        let kinds = RuleEvaluator.kinds(of: template.fields)
        self.kinds = kinds
        sums = zip(rules, fieldIDs).compactMap { rule, ids in
            guard rule.spec.effectiveSeverity == .error, case .binary(.equal, _, _)? = rule.expression else { return nil }
            let counts = ids.filter { kinds[$0] == .count }
            return counts.count >= 2 ? (rule.spec.id, counts) : nil
        }
    }
}

/// Runs a template's rules over a sheet's readings.
public struct RuleCheck {
    public let template: SheetTemplate
    public let evaluator: RuleEvaluator
    private let parsed: ParsedRules

    public init(template: SheetTemplate, rules: ParsedRules? = nil, values: [String: FieldValue], today: Date = Date()) {
        self.template = template
        let parsed = rules ?? ParsedRules(template)
        self.parsed = parsed
        self.evaluator = RuleEvaluator(values: values, fields: template.fields, kinds: parsed.kinds, today: today,
                                       expansions: parsed.expansions)
    }

    /// Every rule that does not hold (or cannot be evaluated on these readings).
    public func failures() -> [RuleFailure] {
        zip(parsed.rules, parsed.fieldIDs).compactMap { rule, fields -> RuleFailure? in
            let spec = rule.spec
            guard let expression = rule.expression else {
                return RuleFailure(rule: spec.id, message: spec.message, detail: "the rule cannot be parsed", fields: [],
                                   severity: spec.effectiveSeverity)
            }
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
            let ids = RuleEvaluator.isPattern(ref) ? fields.map(\.id).filter { RuleEvaluator.matches($0, ref) } : [ref]
            for id in ids where !seen.contains(id) { seen.append(id) }
        }
        return seen
    }
}
