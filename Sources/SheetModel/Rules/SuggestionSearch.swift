import Foundation

/// A set of other readings under which every rule holds (every rule of the groups it mends, when another
/// group is beyond repair: `SuggestionOutcome.partial`): drawn from the recognizers' alternatives, or,
/// for one field, the value the sheet's sums demand when no alternative mends them. Offered to a person;
/// on handwriting the scan fills some of its values in, flagged (`fillableChanges`).
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

/// Finds the most probable set of other readings that satisfies every rule.
///
/// Two kinds of candidate are weighed by their probability relative to the readings as read:
/// - combinations of the recognizers' alternatives. Fields are independent, so combinations are visited
///   in decreasing joint probability (best-first over the product of the fields' alternative lists, with a
///   heap); the first that satisfies all rules is the best of its kind;
/// - one count field set to the single value the rules demand when the others stay as read, if the digit
///   network doubted its reading more than `slipRate`: where the alternatives cannot mend a one-misread
///   sheet, the right value is nearly always missing from them (a digit lost by segmentation, 16 read as
///   4, or a confident wrong digit). Such a value gets `unofferedShare` of the probability the recognizer
///   left to values it did not list, so a field read doubtfully is repaired before a confident one.
/// Each group of rules that share no field (`groups`) is searched on its own; the search of a group gives
/// up — saying the paper is inconsistent — once candidates fall below `plausibility` times the
/// probability of the readings as read, or after `budget` combinations.
public struct SuggestionSearch {
    public let template: SheetTemplate
    public let today: Date
    /// A group's repair less likely than this times the readings as read is not offered (a suggestion that
    /// mends several groups joins repairs that each passed it). Right one-misread repairs are far likelier
    /// than this; a lower bound mends a few more multi-misread sheets and makes hopeless searches longer.
    public var plausibility = 1e-4
    /// Combinations visited before giving up, per group: enough for every one-misread repair measured,
    /// and it keeps the slowest searches near 10 ms.
    public var budget = 3_000
    /// The part of a field's leftover probability (1 − its alternatives' total, at least 1 − the
    /// probability of the value read) granted to the one value the rules demand.
    public var unofferedShare = 0.1
    /// How often a stat keeper writes a number that breaks the sums (assumed: 1 field in 100). A field the
    /// recognizer doubts less than this is taken as the paper says, so a slip is reported as an
    /// inconsistent sheet rather than "repaired".
    public var slipRate = 0.01
    /// The least probability the network must give a value for the scan to fill it in on a number one sum
    /// reads (`fillableChanges`): the one-sum changes that would set a right number wrong were all given
    /// under 0.026, so 0.05 keeps twice the largest wrong one (docs/decisions.md). On a sheet where another
    /// group is beyond repair a value so filled in can still be wrong; it is flagged, and explains nothing
    /// there (`BrokenRuleFlags`).
    public var oneSumFillProbability = 0.05
    /// The least probability a possible culprit's wanted value is given when a broken sum's blame is shared
    /// (`culpritShares`), however sure the network was of what it read: it is sometimes sure of a misread.
    /// At 1e-6, a misread the network was 0.997 sure of took a thousandth of its column's blame and passed
    /// unflagged; at 1e-4 it takes 0.09 (`BrokenRuleFlags.culpritShareLimit`).
    public var culpritFloor = 1e-4
    /// Each rule with the fields it reads.
    let rules: [CheckedRule]
    /// The rules in groups that share no field (`groups(of:)`).
    let groups: [[CheckedRule]]
    private let kinds: [String: FieldKind]

    public init(template: SheetTemplate, rules: ParsedRules? = nil, today: Date = Date()) {
        self.template = template
        self.today = today
        self.kinds = RuleEvaluator.kinds(of: template.fields)
        // Warnings (a sixth foul) describe unusual play, not a misread: the search mends errors only.
        self.rules = (rules ?? ParsedRules(template)).rules.filter { $0.spec.effectiveSeverity == .error }
            .compactMap { rule in rule.expression.map { (name: rule.spec.id, expression: $0) } }.enumerated()
            .map { CheckedRule(id: $0, name: $1.name, expression: $1.expression, fields: Set($1.expression.fieldIDs(in: template.fields))) }
        self.groups = Self.groups(of: self.rules)
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

    public func search(_ readings: [(id: String, reading: FieldReading)]) -> SuggestionOutcome {
        let values = Dictionary(uniqueKeysWithValues: readings.map { ($0.id, $0.reading.value) })
        // Each group with a failing rule is mended on its own (`groups(of:)`); the suggestion is their
        // repairs together. A group the paper breaks beyond repair is left to the person, and the others'
        // repairs are still suggested (`partial`): it once made the whole sheet inconsistent, and then
        // nothing was filled in on the sheet's other columns either (a box score's rebounds, mendable by
        // the network's second choice, stayed misread beside a steals column no alternative mended).
        // A group whose failing rules read nothing that could change (a context box left unticked, a number
        // a person confirmed) is left to the person, as long as another group can be mended.
        let broken = groups.filter { !holds(values, $0) }
        guard !broken.isEmpty else { return .consistent }
        let outcomes = broken.map { search(readings, values: values, under: $0) }
        let repairs = outcomes.compactMap { outcome -> Suggestion? in
            if case .repair(let repair) = outcome { return repair } else { return nil }
        }
        guard !repairs.isEmpty else {
            return outcomes.contains(.noneFound) || outcomes.contains(.unmendable) ? .inconsistent : .noAlternatives
        }
        let suggestion = Suggestion(probability: repairs.reduce(1) { $0 * $1.probability },
                                    relativeToRead: repairs.reduce(1) { $0 * $1.relativeToRead },
                                    changes: repairs.flatMap(\.changes))
        let beyondRepair = zip(broken, outcomes).filter { $0.1 == .noneFound }.flatMap { group, _ in
            group.filter { !holds(values, [$0]) }.map(\.name)
        }
        return beyondRepair.isEmpty ? .suggestion(suggestion) : .partial(suggestion, beyondRepair: beyondRepair)
    }

    /// What the search of one broken group concluded.
    private enum GroupOutcome: Equatable {
        case repair(Suggestion)
        /// Searched: no plausible combination, nor one field's repair, mends it.
        case noneFound
        /// Its failing rules read no field that could change.
        case unmendable
        /// No field of the group came with alternatives or can be repaired.
        case noAlternatives
    }

    /// The likeliest repair of one group of rules, at least one of which fails.
    private func search(_ readings: [(id: String, reading: FieldReading)], values: [String: FieldValue],
                        under rules: [CheckedRule]) -> GroupOutcome {
        // Fields with alternatives can change to one of them; count fields that a failing rule reads can
        // be repaired to the value the rules demand.
        let failing = rules.filter { !holds(values, [$0]) }
        let failingFields = failing.fields
        let groupFields = rules.fields
        let variable = readings.filter { groupFields.contains($0.id) && $0.reading.alternatives.count > 1 }
        // Only a doubt larger than the chance of a slip of the pen makes a misread the likelier story.
        let repairable = readings.filter {
            failingFields.contains($0.id) && kind(of: $0.id) == .count && (doubt($0.reading).map { $0.leftover > slipRate } ?? false)
        }
        guard !variable.isEmpty || !repairable.isEmpty else { return .noAlternatives }
        // Rules on fields that cannot change (a checkbox) are left to the person: a failing one must not
        // stop the search from mending the sums.
        let changeable = Set(variable.map(\.id)).union(repairable.map(\.id))
        let mendable = failing.filter { !$0.fields.isDisjoint(with: changeable) }
        guard !mendable.isEmpty else { return .unmendable }

        let searched = Self.searchable(variable, failingFields: failingFields)
        let options = searched.map { $0.reading.alternatives.sorted { $0.probability > $1.probability } }
        let combination = consistentCombinations(searched, options: options, values: values, failing: mendable, limit: 1).first.map { found in
            Suggestion(probability: found.probability, relativeToRead: found.relativeToRead, changes: found.changes)
        }
        let candidates = [combination, bestRepair(repairable, values: values, failing: mendable)]
        guard let best = candidates.compactMap({ $0 }).max(by: { $0.relativeToRead < $1.relativeToRead }),
              best.relativeToRead >= plausibility else { return .noneFound }
        return .repair(best)
    }

    /// A combination of the fields' alternatives under which every rule holds.
    struct Combination {
        /// The product of the chosen alternatives' probabilities.
        let probability: Double
        /// `probability` over that of the readings as read.
        let relativeToRead: Double
        /// The fields whose value differs from the reading.
        let changes: [Suggestion.Change]
    }

    /// The fields with alternatives a search of one group weighs. Its combinations are searched over at most
    /// 64 fields (bit masks); a box score's shooting columns with the players' points and the opponent's score hold 92.
    /// Only those a failing rule reads can mend it, so past 64 the search keeps those (a fix needing a change
    /// elsewhere as well is then not found), and past 64 of them, none.
    static func searchable(_ variable: [(id: String, reading: FieldReading)], failingFields: Set<String>) -> [(id: String, reading: FieldReading)] {
        let kept = variable.count > 64 ? variable.filter { failingFields.contains($0.id) } : variable
        return kept.count > 64 ? [] : kept
    }

    /// The most probable combinations of the fields' alternatives under which the `failing` rules hold and
    /// no other rule breaks, most probable first: at most `limit`, none less than `plausibility` times the
    /// readings as read, found within `budget` combinations visited.
    ///
    /// Only rules that read a changed field can change their verdict, so each combination is checked
    /// against those alone; and one that leaves every field of a failing rule as read is rejected
    /// without evaluating anything (field sets are bit masks over `variable`). This is what keeps the
    /// search to milliseconds when thousands of combinations are visited.
    ///
    /// - Parameter options: each variable field's alternatives, most probable first.
    func consistentCombinations(_ variable: [(id: String, reading: FieldReading)], options: [[Alternative]],
                                values: [String: FieldValue], failing: [CheckedRule], limit: Int) -> [Combination] {
        guard !variable.isEmpty, variable.count <= 64 else { return [] }
        func probability(_ choice: [Int]) -> Double {
            zip(options, choice).reduce(1) { $0 * $1.0[$1.1].probability }
        }
        let asRead = zip(variable, options).map { entry, list in list.firstIndex { $0.value == entry.reading.value } ?? 0 }
        let readProbability = max(probability(asRead), .leastNonzeroMagnitude)
        let floor = readProbability * plausibility

        let position = Dictionary(uniqueKeysWithValues: variable.enumerated().map { ($1.id, $0) })
        func mask(_ fields: Set<String>) -> UInt64 {
            fields.reduce(0) { bits, id in position[id].map { bits | 1 << UInt64($0) } ?? bits }
        }
        let failingMasks = failing.map { mask($0.fields) }
        // Failing rules first: they are the ones most combinations still break.
        let failingIDs = Set(failing.map(\.id))
        let checked = (failing + rules.filter { !failingIDs.contains($0.id) }).map { (rule: $0, mask: mask($0.fields)) }.filter { $0.mask != 0 }

        // Best-first over the product of the option lists. Each combination has one parent (its last
        // raised position lowered by one), so successors only raise positions from the last raised one on:
        // every combination is visited at most once without remembering which were seen. Combinations are
        // kept as steps (parent, position raised) in one array, not as arrays of their own: tens of
        // thousands are pushed for a sheet no combination mends, and allocating each was most of the time.
        var steps: [(parent: Int, position: Int)] = [(-1, -1)]
        var heap = Heap<(probability: Double, step: Int, last: Int)> { $0.probability > $1.probability }
        heap.push((probability([Int](repeating: 0, count: options.count)), 0, 0))
        var choice = [Int](repeating: 0, count: options.count)
        var visited = 0
        var found: [Combination] = []
        while let (p, step, last) = heap.pop(), visited < budget, p >= floor, found.count < limit {
            visited += 1
            choice.withUnsafeMutableBufferPointer { c in
                for i in c.indices { c[i] = 0 }
                var s = step
                while s > 0 { c[steps[s].position] += 1; s = steps[s].parent }
            }
            let changed = choice.indices.reduce(UInt64(0)) { choice[$1] == asRead[$1] ? $0 : $0 | 1 << UInt64($1) }
            if failingMasks.allSatisfy({ $0 & changed != 0 }) {
                var trial = values
                for i in choice.indices where changed & 1 << UInt64(i) != 0 { trial[variable[i].id] = options[i][choice[i]].value }
                if holds(trial, checked.lazy.filter { $0.mask & changed != 0 }.map(\.rule)) {
                    // A 0 this combination puts in counts as empty when judging whether its row was played
                    // (two stray marks in one overtime row).
                    let changedIndices = choice.indices.filter { changed & 1 << UInt64($0) != 0 }
                    var asWritten = trial
                    for i in changedIndices where options[i][choice[i]].value == .integer(0) { asWritten[variable[i].id] = .empty }
                    let changes = changedIndices.compactMap { i -> Suggestion.Change? in
                        let (entry, to) = (variable[i], options[i][choice[i]])
                        let value = onPaper(to.value, of: entry.id, values: asWritten)
                        return value == entry.reading.value ? nil
                            : Suggestion.Change(field: entry.id, from: entry.reading.value, to: value, probability: to.probability)
                    }
                    found.append(Combination(probability: p, relativeToRead: p / readProbability, changes: changes))
                }
            }
            for i in last..<choice.count where choice[i] + 1 < options[i].count {
                let current = options[i][choice[i]].probability
                let raised = current > 0 ? p / current * options[i][choice[i] + 1].probability : 0
                guard raised >= floor else { continue }
                steps.append((step, i))
                heap.push((raised, steps.count - 1, i))
            }
        }
        return found
    }

    /// The most probable single-field repair: a count field set to the one value in its range that makes
    /// every rule hold with the other fields as read. A field the rules leave open (several values would
    /// do) is not repaired: the sums do not say which. Empty and 0 count alike in sums; a field read with
    /// ink in it is repaired to 0, unless its period was not played (`inUnplayedPeriod`).
    private func bestRepair(_ repairable: [(id: String, reading: FieldReading)], values: [String: FieldValue],
                            failing: [CheckedRule]) -> Suggestion? {
        var best: Suggestion?
        let failingIDs = Set(failing.map(\.id))
        // Only a field every failing rule reads can mend them all on its own.
        for (id, reading) in repairable where failing.allSatisfy({ $0.fields.contains(id) }) {
            guard let (readProbability, leftover) = doubt(reading) else { continue }
            let own = failing + rules.filter { $0.fields.contains(id) && !failingIDs.contains($0.id) }
            guard let demanded = demandedValue(id, besides: Set(reading.alternatives.map(\.value)).union([reading.value]),
                                               values: values, rules: own) else { continue }
            let p = leftover * unofferedShare
            if p / readProbability > best?.relativeToRead ?? 0 {
                best = Suggestion(probability: p, relativeToRead: p / readProbability,
                                  changes: [.init(field: id, from: reading.value, to: demanded, probability: p, demandedByRules: true)])
            }
        }
        return best
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
    private func onPaper(_ value: FieldValue, of id: String, values: [String: FieldValue]) -> FieldValue {
        value == .integer(0) && inUnplayedPeriod(id, values) ? .empty : value
    }

    /// The changes of `suggestion` a scan of handwriting fills in, flagged, for a person to confirm: those
    /// to a count that two or more of the template's sums read (`readByTwoSums`: a quarter's shots, its row
    /// and its column). A number in one sum only (a clears column, a box score's rebounds) says that one of
    /// its numbers is wrong, not which, and the search then picks by the network's odds alone: it is filled
    /// in only when the network itself gave the value at least `oneSumFillProbability`. Measured, changes
    /// to numbers two sums read set wrong readings right and no right one wrong (docs/decisions.md).
    public func fillableChanges(_ suggestion: Suggestion) -> [Suggestion.Change] {
        suggestion.changes.filter { change in
            kind(of: change.field) == .count
                && (readByTwoSums(change.field) || change.demandedByRules != true && change.probability >= oneSumFillProbability)
        }
    }

    /// True when two or more of the template's sums read the field: a change to it is pinned by both.
    public func readByTwoSums(_ id: String) -> Bool {
        rules.filter { $0.isSum && $0.fields.contains(id) }.count >= 2
    }

    /// The number that alone explains a group of failing rules: one that every rule of the group reads,
    /// in at least two of them that are sums, and with exactly one value in its range under which all its
    /// rules hold, the other fields as read.
    public struct Suspect: Sendable, Equatable {
        public let field: String
        /// The value its rules demand.
        public let value: FieldValue
        /// The failing rules it explains (template ids).
        public let rules: Set<String>
    }

    /// The sole suspect of each group of failing rules (`failing`, the template's rule ids) that has one.
    /// Failing rules that share a field form a group; a group with no such number, or more than one, has
    /// none, nor one whose `likeliestRepair` (the search's suggestion) changes another of its numbers:
    /// three misreads can add up to one. Nothing is returned when a rule that fails is one the search
    /// does not weigh (a warning).
    ///
    /// Two sums that each demand the same value of the same number leave little room for a second misread
    /// among their other numbers: it would have to break no other sum (on a goalie sheet every shots,
    /// saves and goals number is in two, and a sum it broke would join the group) and still leave both
    /// sums asking the same of this one.
    public func soleSuspects(_ values: [String: FieldValue], failing names: [String], likeliestRepair: Suggestion? = nil) -> [Suspect] {
        let failing = rules.filter { names.contains($0.name) }
        guard failing.count == Set(names).count else { return [] }
        return Self.groups(of: failing).compactMap { group in
            let common = group.dropFirst().reduce(group[0].fields) { $0.intersection($1.fields) }
            let numbers = group.fields
            let suspects = common.sorted().compactMap { id -> Suspect? in
                guard kind(of: id) == .count, group.filter({ $0.isSum && $0.fields.contains(id) }).count >= 2 else { return nil }
                guard let demanded = demandedValue(id, besides: [values[id] ?? .empty], values: values,
                                                   rules: rules.filter { $0.fields.contains(id) }) else { return nil }
                return Suspect(field: id, value: demanded, rules: Set(group.map(\.name)))
            }
            guard suspects.count == 1, let suspect = suspects.first else { return nil }
            let repairedElsewhere = likeliestRepair?.changes.contains { $0.field != suspect.field && numbers.contains($0.field) } ?? false
            return repairedElsewhere ? nil : suspect
        }
    }

    /// The numbers of the failing sum `name` that one misread could have broken it: each one whose value
    /// under which the sum holds, the others as `values` has them, is one slip of the pen or the reader
    /// away from its own (`oneMisreadApart`; a 0 and an empty box alike, as in sums). Empty when the sum
    /// holds; nil when `name` is not an equality the search weighs.
    ///
    /// A sum that breaks says one of its numbers is wrong, not which; but a count read 3 cannot be the one
    /// when the sum wants it 9 − … − 12 = −4, or 47. With one misread in the sum, the others are right.
    /// Any value up to 999 is weighed, not only the number's range: what is written can lie outside it.
    ///
    /// Of a number in `sure` (the reader was sure of what it saw) the digit lost must be a 1: a lone
    /// stroke is what the cleaning takes for a box line, and a curve or a second stroke left behind would
    /// have made the reader unsure (`BrokenRuleFlags` counts as sure only numbers the reader noted nothing
    /// on, and never an empty box: a faint digit dropped whole leaves one too).
    public func possibleCulprits(ofSum name: String, values: [String: FieldValue], sure: Set<String> = []) -> Set<String>? {
        guard let rule = rules.first(where: { $0.name == name }), rule.isSum else { return nil }
        guard !holds(values, [rule]) else { return [] }
        return rule.fields.filter { id in
            kind(of: id) != .count || wantedByOneMisread(id, in: rule, values: values, sure: sure.contains(id)) != nil
        }
    }

    /// The value count `id` must have for the sum `rule` to hold, the others as `values` has them, as it may
    /// stand on paper (`asWritten`), when one misread of it could give the value read (`oneMisreadApart`;
    /// `sure`: only a lost 1); nil when no such value is one misread away. What makes `id` one of the
    /// sum's `possibleCulprits`, and what `culpritShares` weighs.
    private func wantedByOneMisread(_ id: String, in rule: CheckedRule, values: [String: FieldValue], sure: Bool) -> [FieldValue]? {
        guard let wanted = wantedValue(id, in: rule, values: values, within: 0...999) else { return nil }
        let written = Self.asWritten(wanted)
        let read = values[id] ?? .empty
        return written.contains { Self.oneMisreadApart(written: $0, read: read, lostOnlyIfOne: sure) } ? written : nil
    }

    /// Of the failing sum `name`'s possible culprits (`possibleCulprits`), the chance that each is its one
    /// misread, as the digit network weighs them: a number's weight is the probability the network gave
    /// the value under which the sum holds (`wantedValue`), over the probability it gave the value read,
    /// and the weights are divided by their total. A sum that a 9 read 8 broke, where the network gave
    /// the 8's box 0.05 of a 9, leaves the sure 3 beside it, whose 2 the network did not list, almost none
    /// of the blame.
    ///
    /// The network is sometimes sure of a misread (a 1 read 7 at 0.99): no possible culprit is weighed at
    /// less than `culpritFloor`, so a sum with several sure numbers and no likelier one shares the blame
    /// among them. The shares assume one misread in the sum; a second one can hide from them as it can
    /// from `possibleCulprits`, and the network's doubt is what guards that (`BrokenRuleFlags`).
    ///
    /// `readings` are the sheet's numbers as read. Nil when the sum holds or is not a sum the search
    /// weighs, when it has no possible culprit, or when a number cannot be weighed: no probabilities from
    /// the network and not an empty box read at `doubtedWithoutProbabilitiesUnder` or more.
    public func culpritShares(ofSum name: String, readings: [String: FieldReading], sure: Set<String> = []) -> [String: Double]? {
        guard let rule = rules.first(where: { $0.name == name }), rule.isSum else { return nil }
        let values = readings.mapValues(\.value)
        guard !holds(values, [rule]) else { return nil }
        var weights: [String: Double] = [:]
        for id in rule.fields {
            guard kind(of: id) == .count, let reading = readings[id] else { return nil }
            guard !reading.alternatives.isEmpty || reading.value == .empty && reading.confidence >= Self.doubtedWithoutProbabilitiesUnder
            else { return nil }
            guard let written = wantedByOneMisread(id, in: rule, values: values, sure: sure.contains(id)) else { continue }
            weights[id] = Self.networkProbability(of: written, in: reading, atLeast: culpritFloor)
                / Self.networkProbability(of: Self.asWritten(reading.value), in: reading, atLeast: culpritFloor)
        }
        let total = weights.values.reduce(0, +)
        guard total > 0 else { return nil }
        return weights.mapValues { $0 / total }
    }

    /// A count's value as it may stand on paper: a 0 and an empty box alike, as in sums.
    static func asWritten(_ value: FieldValue) -> [FieldValue] {
        value == .empty || value == .integer(0) ? [.empty, .integer(0)] : [value]
    }

    /// The probability the network gave any of `values` (a reading it was never asked about, an empty box:
    /// 1 for empty, 0 for anything else), and never less than `floor`.
    static func networkProbability(of values: [FieldValue], in reading: FieldReading, atLeast floor: Double) -> Double {
        let given = reading.alternatives.isEmpty
            ? (values.contains(reading.value) ? 1 : 0)
            : reading.alternatives.filter { values.contains($0.value) }.reduce(0) { $0 + $1.probability }
        return max(given, floor)
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
            var trial = values
            if let value { trial[id] = .integer(value) }
            let evaluator = RuleEvaluator(values: trial, fields: template.fields, kinds: kinds, today: today)
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
        var trial = values
        trial[id] = .integer(wanted)
        return holds(trial, [rule]) ? onPaper(.integer(wanted), of: id, values: values) : searched()
    }

    /// True when `read` differs from `written` as one misread does: one digit read as another (17 as 11),
    /// one lost (25 as 5: a stroke taken for the box line) or one added (a stray mark read as a digit);
    /// an empty box is a number of no digits.
    ///
    /// With `lostOnlyIfOne`, a digit lost counts only when it is a 1 (`possibleCulprits`).
    static func oneMisreadApart(written: FieldValue, read: FieldValue, lostOnlyIfOne: Bool = false) -> Bool {
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
            Array(long[..<i] + long[(i + 1)...]) == short && (!lost || !lostOnlyIfOne || long[i] == "1")
        }
    }

    /// The confidence under which a reading the recognizer gave no probabilities for (Tesseract's, an
    /// empty box) counts as doubted (`doubt`) and cannot be weighed against others (`culpritShares`).
    static let doubtedWithoutProbabilitiesUnder = 50.0

    /// The probability of the value read and what the recognizer left to values it did not offer. The
    /// digit network's alternatives are probabilities; Tesseract's confidence is not one, so a reading
    /// without alternatives counts as doubted only when its confidence is under 50 (an empty box read
    /// with confidence 0: ink the reader could not make out).
    private func doubt(_ reading: FieldReading) -> (read: Double, leftover: Double)? {
        if reading.alternatives.isEmpty {
            return reading.confidence < Self.doubtedWithoutProbabilitiesUnder ? (max(reading.confidence / 100, 1e-4), 1 - reading.confidence / 100) : nil
        }
        let read = Self.readProbability(reading)
        return (read, max(1 - reading.listedProbability, 1 - read))
    }

    /// The probability of the value read, as the search weighs it: the network's, or the reader's
    /// confidence where that is lower — the reader caps it when the glyph is much smaller than the sheet's
    /// others, or looks crossed out, and that doubt counts too. Never quite 0.
    static func readProbability(_ reading: FieldReading) -> Double {
        let offered = reading.alternatives.first { $0.value == reading.value }?.probability ?? 1
        return max(min(offered, reading.confidence / 100), 1e-4)
    }

    private func kind(of id: String) -> FieldKind? { kinds[id] }

    /// True when every other count of the field's period row (its template's `gameLog` periods) reads
    /// empty: a period nobody played — an overtime — is left empty on paper, so a stray mark there that the
    /// sums want gone is suggested as empty, not as 0 (which would log an overtime that was not played).
    private func inUnplayedPeriod(_ id: String, _ values: [String: FieldValue]) -> Bool {
        guard let row = template.gameLog?.periods.values.first(where: { id.hasPrefix($0 + ".") }) else { return false }
        let others = template.fields.filter { $0.id != id && $0.id.hasPrefix(row + ".") && $0.kind == .count }
        return !others.isEmpty && others.allSatisfy { (values[$0.id] ?? .empty) == .empty }
    }

    func holds(_ values: [String: FieldValue], _ rules: some Sequence<CheckedRule>) -> Bool {
        let evaluator = RuleEvaluator(values: values, fields: template.fields, kinds: kinds, today: today)
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
