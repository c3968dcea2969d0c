import Foundation

/// A set of other readings under which every rule holds (every rule of the groups it mends, when another
/// group is beyond repair: `SuggestionOutcome.partial`): drawn from the recognizers' alternatives, or,
/// for one field, the value the sheet's sums demand when no alternative mends them. Offered to a person;
/// the values the posterior shows may be its (`SheetPosterior`).
public struct Suggestion: Sendable, Equatable, Codable {
    public struct Change: Sendable, Equatable, Codable {
        public let field: String
        public let from: FieldValue
        public let to: FieldValue
        /// The recognizer's probability for `to`; for a value it did not offer, the share of its leftover
        /// probability the search grants (see `SuggestionSearch.unofferedShare`).
        public let probability: Double
        /// True when the recognizer did not offer `to`: the rules alone point to it (a digit lost or
        /// misread beyond the alternatives). Absent otherwise.
        public let demandedByRules: Bool?

        public init(field: String, from: FieldValue, to: FieldValue, probability: Double, demandedByRules: Bool? = nil) {
            self.field = field; self.from = from; self.to = to; self.probability = probability
            self.demandedByRules = demandedByRules
        }
    }

    /// Joint probability of the suggested readings of the fields that could change (independent fields).
    public let probability: Double
    /// Its probability relative to the readings as read (how much less likely the fix is than the reading).
    public let relativeToRead: Double
    public let changes: [Change]
}

/// What the search concluded.
public enum SuggestionOutcome: Sendable, Equatable {
    /// Every rule already holds.
    case consistent
    /// The most probable set of other readings that satisfies every rule.
    case suggestion(Suggestion)
    /// Some groups of rules (`SuggestionSearch.groups`) mend and others are beyond repair: the repairs of
    /// the ones that mend, and the failing rules of the others. The groups share no field, so one the
    /// paper breaks says nothing of how another was misread.
    case partial(Suggestion, beyondRepair: [String])
    /// No plausible combination satisfies the rules: the paper itself is inconsistent (or misread beyond
    /// what one field's repair can explain). Nothing is suggested.
    case inconsistent
    /// Rules fail, but no field involved came with alternatives or can be repaired: nothing to search.
    case noAlternatives

    /// The suggestion offered, whole or for the groups that mend (`partial`), or nil.
    public var suggestion: Suggestion? {
        switch self {
        case .suggestion(let s), .partial(let s, _): s
        case .consistent, .inconsistent, .noAlternatives: nil
        }
    }
}

/// The template's rules as the model of doubt weighs them (`SheetPosterior`): which numbers they tie
/// together (`groups`), whether they hold, and the value a sum demands of one of its numbers.
public struct SuggestionSearch {
    public let template: SheetTemplate
    public let today: Date
    /// Each rule with the fields it reads.
    let rules: [CheckedRule]
    /// The rules in groups that share no field (`groups(of:)`).
    let groups: [[CheckedRule]]
    private let kinds: [String: FieldKind]
    /// The rules' field-id patterns expanded once (`RuleEvaluator.expansions`).
    private let expansions: [String: [String]]

    public init(template: SheetTemplate, rules: ParsedRules? = nil, today: Date = Date()) {
        self.template = template
        self.today = today
        let parsed = rules ?? ParsedRules(template)
        self.kinds = parsed.kinds
        // Warnings (a sixth foul) describe unusual play, not a misread: the search mends errors only.
        self.rules = zip(parsed.rules, parsed.fieldIDs).filter { $0.0.spec.effectiveSeverity == .error }
            .compactMap { rule, fields in rule.expression.map { (name: rule.spec.id, expression: $0, fields: fields) } }.enumerated()
            .map { CheckedRule(id: $0, name: $1.name, expression: $1.expression, fields: Set($1.fields)) }
        self.groups = Self.groups(of: self.rules)
        self.expansions = parsed.expansions
    }

    /// Rules in groups that share no field. The fields are independent, so what the readings of one group
    /// are does not change how likely those of another are: the likeliest readings under which every rule
    /// holds are each group's likeliest, and each group is searched and weighed on its own. A box score's
    /// rebounds column is one group, its shooting columns with the players' points another; the search's
    /// bit masks hold 64 fields, which a whole box score (a hundred and more numbers with alternatives)
    /// does not fit in, and one search over all its columns spends its budget on combinations of them.
    static func groups(of rules: [CheckedRule]) -> [[CheckedRule]] {
        var groups: [(fields: Set<String>, rules: [CheckedRule])] = []
        for rule in rules {
            var merged = (fields: rule.fields, rules: [rule])
            for i in groups.indices.reversed() where !groups[i].fields.isDisjoint(with: rule.fields) {
                merged.fields.formUnion(groups[i].fields)
                merged.rules += groups[i].rules
                groups.remove(at: i)
            }
            groups.append(merged)
        }
        // In the template's order, each group's rules too: a suggestion lists its changes group by group.
        return groups.map { $0.rules.sorted { $0.id < $1.id } }.sorted { $0[0].id < $1[0].id }
    }

    /// The one value in `id`'s range, but for those `besides`, under which `rules` hold with the other
    /// fields as `values` has them; nil when none does or the rules leave it open (two or more), and as it
    /// would be written (`onPaper`).
    func demandedValue(_ id: String, besides excluded: Set<FieldValue>, values: [String: FieldValue],
                               rules: [CheckedRule]) -> FieldValue? {
        let range = template.fields.first { $0.id == id }?.allowedRange ?? 0...99
        var trial = values
        var demanded: [FieldValue] = []
        for value in range.map(FieldValue.integer) where !excluded.contains(value) {
            trial[id] = value
            if holds(trial, rules) { demanded.append(value) }
            if demanded.count > 1 { return nil }
        }
        guard let only = demanded.first else { return nil }
        return onPaper(only, of: id, values: values)
    }

    /// A value the sums want, as it would be written: empty and 0 count alike in sums, and a 0 in a period
    /// nobody played (`inUnplayedPeriod`) is an empty box.
    func onPaper(_ value: FieldValue, of id: String, values: [String: FieldValue]) -> FieldValue {
        value == .integer(0) && inUnplayedPeriod(id, values) ? .empty : value
    }

    /// `changes` to `values`, each as it would be written: a 0 they put in counts as empty when judging
    /// whether its period was played (two stray marks in one overtime row make no played period).
    func onPaper(_ changes: [String: FieldValue], values: [String: FieldValue]) -> [String: FieldValue] {
        var asWritten = values
        for (id, value) in changes { asWritten[id] = value == .integer(0) ? .empty : value }
        return changes.reduce(into: [:]) { $0[$1.key] = onPaper($1.value, of: $1.key, values: asWritten) }
    }


    /// A count's value as it may stand on paper: a 0 and an empty box alike, as in sums.
    static func asWritten(_ value: FieldValue) -> [FieldValue] {
        value == .empty || value == .integer(0) ? [.empty, .integer(0)] : [value]
    }

    /// The one value of count `id` in `range` under which the sum `rule` holds, the others as `values` has
    /// them, as it would be written (what `demandedValue` finds over the number's allowed range, but for the
    /// value read). A sum is linear in each of its numbers: one more in the number moves the gap between
    /// its sides by the number's coefficient, so three evaluations give the value. Trying every value
    /// instead, as `demandedValue` does, read a box score with a dozen broken columns twice as slowly. A rule
    /// that is not linear in the number is searched that way, over the number's allowed range.
    func wantedValue(_ id: String, in rule: CheckedRule, values: [String: FieldValue], within range: ClosedRange<Int>) -> FieldValue? {
        let read = values[id] ?? .empty
        let searched = { demandedValue(id, besides: [read], values: values, rules: [rule]) }
        let n: Int
        switch read {
        case .integer(let i): n = i
        case .empty: n = 0   // an empty count adds 0 to a sum
        default: return searched()
        }
        guard case .binary(.equal, let left, let right) = rule.expression else { return searched() }
        func gap(at value: Int?) -> Int? {
            var evaluator = RuleEvaluator(values: values, fields: template.fields, kinds: kinds, today: today, expansions: expansions)
            if let value { evaluator.changed = [id: .integer(value)] }
            guard case .integer(let l)? = try? evaluator.evaluate(left), case .integer(let r)? = try? evaluator.evaluate(right) else { return nil }
            return l - r
        }
        guard let asRead = gap(at: nil), let plusOne = gap(at: n + 1), let plusTwo = gap(at: n + 2),
              plusTwo - plusOne == plusOne - asRead else { return searched() }
        let step = plusOne - asRead
        // The sum holds as read, or the number is not in it, or no whole value balances it (an odd gap
        // to a number counted twice).
        guard asRead != 0, step != 0, asRead % step == 0 else { return nil }
        let wanted = n - asRead / step
        guard range.contains(wanted) else { return nil }
        return holds(values, changed: [id: .integer(wanted)], [rule]) ? onPaper(.integer(wanted), of: id, values: values) : searched()
    }

    /// True when `read` differs from `written` as one misread does: one digit read as another (17 as 11),
    /// one lost (25 as 5: a stroke taken for the box line) or one added (a stray mark read as a digit);
    /// an empty box is a number of no digits.
    static func oneMisreadApart(written: FieldValue, read: FieldValue) -> Bool {
        func digits(_ value: FieldValue) -> [Character]? {
            switch value {
            case .empty: []
            case .integer(let i) where i >= 0: Array(String(i))
            default: nil
            }
        }
        guard let w = digits(written), let r = digits(read), w != r else { return false }
        if w.count == r.count { return zip(w, r).filter { $0 != $1 }.count == 1 }
        let lost = w.count > r.count
        let (long, short) = lost ? (w, r) : (r, w)
        guard long.count == short.count + 1 else { return false }
        return long.indices.contains { i in
            Array(long[..<i] + long[(i + 1)...]) == short
        }
    }

    func isCount(_ id: String) -> Bool { kinds[id] == .count }

    /// True when every other count of the field's period row (its template's `gameLog` periods) reads
    /// empty: a period nobody played — an overtime — is left empty on paper, so a stray mark there that the
    /// sums want gone is suggested as empty, not as 0 (which would log an overtime that was not played).
    private func inUnplayedPeriod(_ id: String, _ values: [String: FieldValue]) -> Bool {
        guard let row = FieldID(id).row, template.gameLog?.periods.values.contains(row) == true else { return false }
        let others = template.fields.filter { $0.id != id && FieldID($0.id).row == row && $0.kind == .count }
        return !others.isEmpty && others.allSatisfy { (values[$0.id] ?? .empty) == .empty }
    }

    func holds(_ values: [String: FieldValue], changed: [String: FieldValue] = [:], _ rules: some Sequence<CheckedRule>) -> Bool {
        var evaluator = RuleEvaluator(values: values, fields: template.fields, kinds: kinds, today: today, expansions: expansions)
        evaluator.changed = changed
        return rules.allSatisfy { (try? evaluator.evaluate($0.expression)) == .boolean(true) }
    }
}

/// A parsed rule with the fields it reads; `id` is its place in the template's list.
struct CheckedRule {
    let id: Int
    /// The template's id for the rule (`q2.balance`).
    let name: String
    let expression: Expression
    let fields: Set<String>

    /// An equality (`q2.saves + q2.goals == q2.shots`): it decides a number; an inequality only bounds it.
    var isSum: Bool {
        if case .binary(.equal, _, _) = expression { return true }
        return false
    }
}

extension Array where Element == CheckedRule {
    /// Every field the rules read.
    var fields: Set<String> { reduce(into: []) { $0.formUnion($1.fields) } }
}

/// A binary heap ordered by `above` (the top is the element that is above all others).
struct Heap<Element> {
    private var items: [Element] = []
    private let above: (Element, Element) -> Bool

    init(above: @escaping (Element, Element) -> Bool) { self.above = above }

    mutating func push(_ e: Element) {
        items.append(e)
        var i = items.count - 1
        while i > 0, above(items[i], items[(i - 1) / 2]) {
            items.swapAt(i, (i - 1) / 2)
            i = (i - 1) / 2
        }
    }

    mutating func pop() -> Element? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var best = i
            if l < items.count, above(items[l], items[best]) { best = l }
            if r < items.count, above(items[r], items[best]) { best = r }
            if best == i { return top }
            items.swapAt(i, best)
            i = best
        }
    }
}
