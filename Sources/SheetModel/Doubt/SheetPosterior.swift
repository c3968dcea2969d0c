import Foundation

/// The one model of doubt: how sure the sheet makes each of its numbers, and which to show.
///
/// For each group of numbers the template's rules tie together (`SuggestionSearch.groups`):
///
///     P(values | ink, rules) ∝ Π_fields P_reader(value | ink) × Π_rules (holds ? 1 : slip)
///
/// - P_reader is the reader's: the probabilities it gave the values it listed, the value read at most its
///   own confidence (a `ReadingDoubt` takes mass from it), and never more than 1 − `silentMisread` for them
///   all (a reader is sometimes sure of a misread). What it left unlisted goes to other values: a value one
///   misread from the one read (a digit changed, lost or added) gets `nearShare` of it, any other `farShare`.
///   What a wide mark's doubt took from the value read (`ReadingDoubt.wideMark`: the mark is two digits read
///   as one) goes to the values one digit longer that keep the digits read, alike.
/// - slip is the chance that the paper itself breaks a rule: a stat keeper's slip of the pen.
///
/// The assignments of the values the reader listed are visited likeliest first (`budget` of them), then the
/// likeliest that break a rule are each mended by one value the reader did not list (what a sum demands of
/// one of its numbers).
/// The mass not visited is counted as the visited mass is, with one more rule broken. A number's value is
/// its marginal's argmax, its confidence 100 × that marginal; the suggestion is the likeliest assignment
/// under which every rule holds.
public struct SheetPosterior {
    public let search: SuggestionSearch
    /// The model's numbers, documented where they are set (`JudgingPolicy.Sums`).
    public var sums: JudgingPolicy.Sums
    public var slip: Double { sums.slip }
    var silentMisread: Double { sums.silentMisread }
    var nearShare: Double { sums.nearShare }
    var farShare: Double { sums.farShare }
    var budget: Int { sums.budget }
    var mended: Int { sums.mended }
    var largeGroup: (numbers: Int, budget: Int, mended: Int) { sums.largeGroup }
    var floor: Double { sums.floor }

    public init(search: SuggestionSearch, sums: JudgingPolicy.Sums = JudgingPolicy.standard.sums) {
        self.search = search
        self.sums = sums
    }

    /// The readings weighed under the rules, and the suggestion.
    public struct Weighed {
        public var readings: [(id: String, reading: FieldReading)]
        public var outcome: SuggestionOutcome
    }

    /// - Parameter settled: fields whose value a person gave: taken as certain, never weighed or suggested away.
    public func weigh(_ readings: [(id: String, reading: FieldReading)], settled: Set<String> = []) -> Weighed {
        var weighed = readings
        let index = Dictionary(uniqueKeysWithValues: readings.enumerated().map { ($1.id, $0) })
        let values = Dictionary(uniqueKeysWithValues: readings.map { ($0.id, $0.reading.value) })
        var repairs: [Suggestion] = []
        var beyondRepair: [String] = []
        var brokenGroups = 0
        for rules in search.groups {
            // Counts: the numbers the sums weigh. A date's rules bound it (not after the day of the scan); its
            // doubt is the reader's weighed by its season (`SeasonPrior`).
            let variables = rules.fields.sorted().filter { id in index[id] != nil && search.isCount(id) && !settled.contains(id) }
            let varying = rules.filter { !$0.fields.isDisjoint(with: variables) }
            guard !variables.isEmpty, !varying.isEmpty else {
                if !search.holds(values, rules) { brokenGroups += 1 }
                continue
            }
            let group = Group(posterior: self, ids: variables, beliefs: variables.map { belief(readings[index[$0]!].reading) },
                              rules: varying, values: values)
            var shown = variables.indices.map { group.shown($0) }
            // A number of a rule the values shown break is only as sure as that rule's numbers together: one
            // of them is not what the paper says, or the paper slipped.
            var shownValues = values
            for (k, id) in variables.enumerated() { shownValues[id] = shown[k].value }
            for rule in varying where !search.holds(shownValues, [rule]) {
                let ks = variables.indices.filter { rule.fields.contains(variables[$0]) }
                let together = group.joint(ks, ks.map { shown[$0].value })
                for k in ks { shown[k].probability = min(shown[k].probability, together) }
            }
            // A 0 the rules put in a period nobody played is an empty box, as on paper.
            let moved = Dictionary(uniqueKeysWithValues: variables.enumerated().filter { shown[$0.offset].value != values[$0.element] }
                .map { ($0.element, shown[$0.offset].value) })
            let onPaper = search.onPaper(moved, values: values)
            for (k, id) in variables.enumerated() {
                weighed[index[id]!].reading = group.weighed(readings[index[id]!].reading, as: onPaper[id] ?? shown[k].value,
                                                            probability: shown[k].probability)
            }
            guard !group.brokenAsRead.isEmpty else { continue }
            brokenGroups += 1
            // A repair is offered when it is likelier than the paper having slipped on every rule it mends.
            if let repair = group.suggestion, repair.relativeToRead > pow(slip, Double(group.brokenAsRead.count)) {
                let written = search.onPaper(Dictionary(uniqueKeysWithValues: repair.changes.map { ($0.field, $0.to) }), values: values)
                let changes = repair.changes.compactMap { change -> Suggestion.Change? in
                    let to = written[change.field] ?? change.to
                    return to == change.from ? nil : Suggestion.Change(field: change.field, from: change.from, to: to,
                                                                       probability: change.probability, demandedByRules: change.demandedByRules)
                }
                repairs.append(Suggestion(probability: repair.probability, relativeToRead: repair.relativeToRead, changes: changes))
            } else {
                beyondRepair += group.brokenAsRead.map(\.name)
            }
        }
        let outcome: SuggestionOutcome
        if brokenGroups == 0 { outcome = .consistent }
        else if repairs.isEmpty { outcome = beyondRepair.isEmpty ? .noAlternatives : .inconsistent }
        else {
            let merged = Suggestion(probability: repairs.reduce(1) { $0 * $1.probability },
                                    relativeToRead: repairs.reduce(1) { $0 * $1.relativeToRead },
                                    changes: repairs.flatMap(\.changes))
            outcome = beyondRepair.isEmpty ? .suggestion(merged) : .partial(merged, beyondRepair: beyondRepair)
        }
        return Weighed(readings: weighed, outcome: outcome)
    }

    /// P_reader for one number: its listed values, most probable first, and the mass left to the others.
    struct Belief {
        let read: FieldValue
        let options: [Alternative]
        /// What the reader left to the values it did not list, spread by how near they are to the one read.
        let unlisted: Double
        /// What a wide mark's doubt took from the value read: the chance the mark is two digits.
        var twoDigits = 0.0
        var unlistedTotal: Double { unlisted + twoDigits }
    }

    func belief(_ reading: FieldReading) -> Belief {
        let own = max(reading.confidence / 100, 1e-6)
        var options = reading.alternatives.isEmpty ? [Alternative(value: reading.value, probability: own)] : reading.alternatives
        if let i = options.firstIndex(where: { $0.value == reading.value }) {
            options[i] = Alternative(value: reading.value, probability: min(options[i].probability, own))
        } else {
            options.append(Alternative(value: reading.value, probability: own))
        }
        let listed = options.reduce(0) { $0 + $1.probability }
        let scale = sums.scaleLeavingMisreads(listed: listed)
        // Swift's sort is stable: equally probable values keep the reader's order.
        options = options.map { Alternative(value: $0.value, probability: max($0.probability * scale, 1e-9)) }
            .sorted { $0.probability > $1.probability }
        let unlisted = max(0, 1 - listed * scale)
        // A wide mark's cap is the chance that the mark is two digits the network read as one ("12" as 2): that
        // share is no misread of a digit, so it does not go to a 7 as much as to a 12. Spread as other unlisted
        // mass, it made a wide 2 the likeliest 7 a sum wanted, and left the number truly misread unflagged.
        let inkProbability = reading.alternatives.first { $0.value == reading.value }?.probability ?? own
        let capped = reading.doubts.contains(.wideMark) ? max(0, inkProbability - own) : 0
        let ownUnlisted = max(silentMisread, unlisted - capped)
        return Belief(read: reading.value, options: options, unlisted: min(unlisted, ownUnlisted), twoDigits: max(0, unlisted - ownUnlisted))
    }

    /// P_reader of a value the reader did not list.
    func unlistedProbability(_ value: FieldValue, _ belief: Belief) -> Double {
        let near = SuggestionSearch.asWritten(value).contains { SuggestionSearch.oneMisreadApart(written: $0, read: belief.read) }
        var p = belief.unlisted * (near ? nearShare : farShare)
        if belief.twoDigits > 0 {
            let pairs = Self.oneDigitLonger(belief.read)
            if pairs.contains(value) { p += belief.twoDigits / Double(pairs.count) }
        }
        return p
    }

    /// The numbers one digit longer than `read` that keep its digits in order: what two digits read as one
    /// could be (2: 12, 20–29, 32, …, 92).
    static func oneDigitLonger(_ read: FieldValue) -> Set<FieldValue> {
        guard case .integer(let n) = read, n >= 0 else { return [] }
        let digits = Array(String(n))
        var values = Set<FieldValue>()
        for i in 0...digits.count {
            for d in "0123456789" {
                let written = digits[..<i] + [d] + digits[i...]
                guard written.first != "0", let value = Int(String(written)) else { continue }
                values.insert(.integer(value))
            }
        }
        return values
    }

    /// One group's assignments, visited and mended, with their weights.
    struct Group {
        let ids: [String]
        let beliefs: [Belief]
        /// Per variable: value → posterior mass (unnormalised).
        private(set) var mass: [[FieldValue: Double]]
        private(set) var total = 0.0
        /// Every assignment seen, with its weight.
        private var weighedAssignments: [(changed: [Int: FieldValue], weight: Double)] = []
        /// Per variable: the mass of the values the reader did not list, over that of those it did, each
        /// weighed by what the rules make of them: an unlisted value breaks a sum the number is in (slip),
        /// and holds a rule that only bounds it.
        private var unlistedRatio: [Double] = []
        /// The group's rules the readings as read break.
        let brokenAsRead: [CheckedRule]
        var asReadBroken: Bool { !brokenAsRead.isEmpty }
        private(set) var suggestion: Suggestion?

        init(posterior: SheetPosterior, ids: [String], beliefs: [Belief], rules: [CheckedRule], values: [String: FieldValue]) {
            self.ids = ids
            self.beliefs = beliefs
            mass = Array(repeating: [:], count: ids.count)
            let search = posterior.search
            let n = ids.count
            let rulesOf: [[Int]] = ids.map { id in rules.indices.filter { rules[$0].fields.contains(id) } }
            let baseBroken = rules.map { !search.holds(values, [$0]) }
            brokenAsRead = rules.indices.filter { baseBroken[$0] }.map { rules[$0] }
            let asRead = beliefs.map { b in b.options.firstIndex { $0.value == b.read } ?? 0 }

            /// An assignment: the variables that differ from the values as read, and their values.
            struct Assignment { var changed: [Int: FieldValue]; var prior: Double; var broken: Int }
            /// The rules broken by the values as read with `changed` applied.
            func brokenRules(_ changed: [Int: FieldValue]) -> [Bool] {
                guard !changed.isEmpty else { return baseBroken }
                let trial = Dictionary(uniqueKeysWithValues: changed.map { (ids[$0.key], $0.value) })
                var touched = Set<Int>()
                for k in changed.keys { touched.formUnion(rulesOf[k]) }
                return rules.indices.map { touched.contains($0) ? !search.holds(values, changed: trial, [rules[$0]]) : baseBroken[$0] }
            }
            func broken(_ changed: [Int: FieldValue]) -> Int { brokenRules(changed).filter { $0 }.count }

            // Over the product of the listed values, likeliest first by the weight a choice could at best
            // reach: its prior, with the rules its parent broke, less those its raised number is in (a change
            // there may mend them). Each choice has one parent (its last raised position lowered by one), so
            // successors raise positions from the last raised one on: every choice is visited at most once
            // without remembering which were seen.
            var visited: [Assignment] = []
            var visitedPrior = 0.0
            let top = beliefs.reduce(1.0) { $0 * $1.options[0].probability }
            var steps: [(parent: Int, position: Int, prior: Double)] = [(-1, -1, top)]
            var heap = Heap<(key: Double, step: Int, last: Int)> { $0.key > $1.key }
            heap.push((top, 0, 0))
            var choice = [Int](repeating: 0, count: n)
            let large = n > posterior.largeGroup.numbers
            let budget = large ? posterior.largeGroup.budget : posterior.budget
            while visited.count < budget, let (_, step, last) = heap.pop() {
                let p = steps[step].prior
                for i in choice.indices { choice[i] = 0 }
                var s = step
                while s > 0 { choice[steps[s].position] += 1; s = steps[s].parent }
                var changed: [Int: FieldValue] = [:]
                for k in 0..<n where choice[k] != asRead[k] { changed[k] = beliefs[k].options[choice[k]].value }
                let brokenHere = brokenRules(changed)
                let count = brokenHere.filter { $0 }.count
                visited.append(Assignment(changed: changed, prior: p, broken: count))
                visitedPrior += p
                for i in last..<n where choice[i] + 1 < beliefs[i].options.count {
                    let raised = p / beliefs[i].options[choice[i]].probability * beliefs[i].options[choice[i] + 1].probability
                    guard raised >= top * posterior.floor else { continue }
                    let mendable = rulesOf[i].filter { brokenHere[$0] }.count
                    steps.append((step, i, raised))
                    heap.push((raised * pow(posterior.slip, Double(count - mendable)), steps.count - 1, i))
                }
            }

            // The likeliest broken assignments, each mended by one value the reader did not list: the value
            // a broken sum demands of one of its numbers, the others as the assignment has them.
            func weight(_ a: Assignment) -> Double { a.prior * pow(posterior.slip, Double(a.broken)) }
            var mendedAssignments: [Assignment] = []
            var seen = Set<[Int: FieldValue]>(visited.map(\.changed))
            for a in visited.filter({ $0.broken > 0 }).sorted(by: { weight($0) > weight($1) }).prefix(large ? posterior.largeGroup.mended : posterior.mended) {
                var trial = values
                for (k, v) in a.changed { trial[ids[k]] = v }
                for rule in rules where rule.isSum && !search.holds(trial, [rule]) {
                    for k in 0..<n where rule.fields.contains(ids[k]) && search.isCount(ids[k]) {
                        guard let wanted = search.wantedValue(ids[k], in: rule, values: trial, within: 0...999),
                              !beliefs[k].options.contains(where: { $0.value == wanted }) else { continue }
                        var changed = a.changed
                        changed[k] = wanted == beliefs[k].read ? nil : wanted
                        guard !seen.contains(changed) else { continue }
                        seen.insert(changed)
                        let current = a.changed[k].flatMap { v in beliefs[k].options.first { $0.value == v }?.probability }
                            ?? beliefs[k].options[asRead[k]].probability
                        let prior = a.prior / current * posterior.unlistedProbability(wanted, beliefs[k])
                        mendedAssignments.append(Assignment(changed: changed, prior: prior, broken: broken(changed)))
                    }
                }
            }

            let all = visited + mendedAssignments
            let asReadPrior = beliefs.indices.reduce(1.0) { $0 * beliefs[$1].options[asRead[$1]].probability }
            unlistedRatio = (0..<n).map { k in
                let factor = rulesOf[k].contains { rules[$0].isSum } ? posterior.slip : 1
                return beliefs[k].unlistedTotal * factor / max(1 - beliefs[k].unlistedTotal, 1e-9)
            }
            for a in all {
                let w = weight(a)
                weighedAssignments.append((a.changed, w))
                total += w
                for k in 0..<n { mass[k][a.changed[k] ?? beliefs[k].read, default: 0] += w }
            }
            // What was not visited is less probable, by the reader, than what was, and differs from it in
            // some number that was unlikely: it is counted as the visited assignments are, with one more rule
            // broken, in proportion to its prior mass. It takes from every value's confidence alike.
            let seenPrior = visitedPrior + mendedAssignments.reduce(0) { $0 + $1.prior }
            let unseen = max(0, 1 - seenPrior)
            if asReadBroken && !all.contains(where: { $0.broken == 0 }) {
                // No assignment seen mends the group, yet the paper most likely adds up: the story under which
                // it does lies in what was not visited, and changes some number of a broken rule, which one
                // the search cannot say. That mass is counted as holding every rule, and given to none of the
                // values seen of those numbers; the others keep theirs.
                let suspects = Set(rules.indices.filter { baseBroken[$0] }.flatMap { r in (0..<n).filter { rulesOf[$0].contains(r) } })
                for k in 0..<n where !suspects.contains(k) {
                    for (v, m) in mass[k] { mass[k][v] = m + unseen * m / max(total, .leastNonzeroMagnitude) }
                }
                total += unseen
            } else {
                total += posterior.slip * total * unseen / max(seenPrior, .leastNonzeroMagnitude)
            }
            if asReadBroken, let best = all.filter({ $0.broken == 0 }).max(by: { $0.prior < $1.prior }) {
                let changes = best.changed.keys.sorted().map { k -> Suggestion.Change in
                    let to = best.changed[k]!
                    let listed = beliefs[k].options.first { $0.value == to }
                    return Suggestion.Change(field: ids[k], from: beliefs[k].read, to: to,
                                             probability: listed?.probability ?? posterior.unlistedProbability(to, beliefs[k]),
                                             demandedByRules: listed == nil ? true : nil)
                }
                suggestion = Suggestion(probability: best.prior, relativeToRead: best.prior / max(asReadPrior, .leastNonzeroMagnitude),
                                        changes: changes)
            }
        }

        /// The value of largest posterior of variable `k`, and that posterior; on a tie, the value read.
        func shown(_ k: Int) -> (value: FieldValue, probability: Double) {
            guard total > 0 else { return (beliefs[k].read, 0) }
            var (value, m) = (beliefs[k].read, mass[k][beliefs[k].read] ?? 0)
            for (v, vm) in mass[k] where vm > m { (value, m) = (v, vm) }
            return (value, min(1, m / total / (1 + unlistedRatio[k])))
        }

        /// The probability that variables `ks` all hold `values`.
        func joint(_ ks: [Int], _ values: [FieldValue]) -> Double {
            guard total > 0 else { return 0 }
            let together = weighedAssignments.filter { a in zip(ks, values).allSatisfy { (a.changed[$0] ?? beliefs[$0].read) == $1 } }
            return together.reduce(0) { $0 + $1.weight } / total
        }

        /// The reading of variable `k` shown as `value` with `probability`: the ink's value and confidence
        /// kept when they differ.
        func weighed(_ reading: FieldReading, as value: FieldValue, probability: Double) -> FieldReading {
            guard total > 0 else { return reading }
            var weighed = reading
            let confidence = 100 * probability
            if value != reading.value {
                weighed.inkValue = reading.value
                weighed.value = value
            }
            if abs(confidence - reading.confidence) >= 0.05 || value != reading.value { weighed.inkConfidence = reading.confidence }
            weighed.confidence = confidence
            return weighed
        }
    }
}
