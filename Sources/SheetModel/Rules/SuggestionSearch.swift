import Foundation

/// A set of other readings, drawn from the recognizers' alternatives, under which every rule holds.
/// Offered to a person, never applied.
public struct Suggestion: Sendable, Equatable, Codable {
    public struct Change: Sendable, Equatable, Codable {
        public let field: String
        public let from: FieldValue
        public let to: FieldValue
        /// The recognizer's probability for `to`.
        public let probability: Double
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
    /// The most probable combination of alternatives that satisfies every rule.
    case suggestion(Suggestion)
    /// No plausible combination satisfies the rules: the paper itself is inconsistent (or misread beyond
    /// the alternatives). Nothing is suggested.
    case inconsistent
    /// Rules fail, but no field involved came with alternatives (Tesseract gives none): nothing to search.
    case noAlternatives
}

/// Finds the most probable combination of alternative readings that satisfies every rule.
///
/// Fields are independent, so combinations are visited in decreasing joint probability (best-first over
/// the product of the fields' alternative lists, with a heap); the first that satisfies all rules is the
/// answer. The search gives up — saying the paper is inconsistent — once combinations fall below
/// `plausibility` times the probability of the readings as read, or after `budget` combinations.
public struct SuggestionSearch {
    public let template: SheetTemplate
    public let today: Date
    public var plausibility = 1e-6
    public var budget = 20_000
    private let rules: [Expression]

    public init(template: SheetTemplate, rules: ParsedRules? = nil, today: Date = Date()) {
        self.template = template
        self.today = today
        self.rules = (rules ?? ParsedRules(template)).rules.compactMap(\.expression)
    }

    public func search(_ readings: [(id: String, reading: FieldReading)]) -> SuggestionOutcome {
        var values = Dictionary(uniqueKeysWithValues: readings.map { ($0.id, $0.reading.value) })
        guard !holds(values, rules) else { return .consistent }

        // Only fields with alternatives can change; each one's options are its alternatives, best first.
        let variable = readings.filter { $0.reading.alternatives.count > 1 }
        guard !variable.isEmpty else { return .noAlternatives }
        // Rules on fields that cannot change (a checkbox) are left to the person: a failing one must not
        // stop the search from mending the sums.
        let changeable = Set(variable.map(\.id))
        let rules = self.rules.filter { !Set($0.fieldIDs(in: template.fields)).isDisjoint(with: changeable) }
        // What fails reads no field that could change: no alternative can mend it.
        guard !holds(values, rules) else { return .inconsistent }
        let options = variable.map { $0.reading.alternatives.sorted { $0.probability > $1.probability } }
        func probability(_ choice: [Int]) -> Double {
            zip(options, choice).reduce(1) { $0 * $1.0[$1.1].probability }
        }
        let asRead = zip(variable, options).map { entry, list in list.firstIndex { $0.value == entry.reading.value } ?? 0 }
        let floor = probability(asRead) * plausibility

        var heap = Heap<(Double, [Int])> { $0.0 > $1.0 }
        var seen: Set<[Int]> = []
        let start = [Int](repeating: 0, count: options.count)
        heap.push((probability(start), start))
        seen.insert(start)
        var visited = 0
        while let (p, choice) = heap.pop(), visited < budget, p >= floor {
            visited += 1
            for (entry, (list, index)) in zip(variable, zip(options, choice)) { values[entry.id] = list[index].value }
            if holds(values, rules) {
                let changes = zip(variable, zip(options, choice)).compactMap { entry, pair -> Suggestion.Change? in
                    let (list, index) = pair
                    let to = list[index]
                    return to.value == entry.reading.value ? nil
                        : Suggestion.Change(field: entry.id, from: entry.reading.value, to: to.value, probability: to.probability)
                }
                return .suggestion(Suggestion(probability: p, relativeToRead: p / max(probability(asRead), .leastNonzeroMagnitude),
                                              changes: changes))
            }
            for i in choice.indices where choice[i] + 1 < options[i].count {
                var next = choice
                next[i] += 1
                if seen.insert(next).inserted { heap.push((probability(next), next)) }
            }
        }
        return .inconsistent
    }

    private func holds(_ values: [String: FieldValue], _ rules: [Expression]) -> Bool {
        let evaluator = RuleEvaluator(values: values, fields: template.fields, today: today)
        return rules.allSatisfy { (try? evaluator.evaluate($0)) == .boolean(true) }
    }
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
