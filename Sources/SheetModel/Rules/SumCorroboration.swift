import Foundation

/// Weighs the digit network's readings against the sheet's sums: a field's confidence becomes the
/// probability of its value given its own ink *and* the rules the sheet's numbers obey, as a person reading
/// the sheet combines the two (a 12 read 72 beside saves 7 and goals 5 is a 12).
///
/// The model: the fields are independent, each with the network's alternatives; the stories are the most
/// probable combinations under which every rule holds (`SuggestionSearch`, best-first), plus the readings
/// as read times `SuggestionSearch.slipRate`, the paper's own slip; a field's confidence is the share of
/// their probability that gives it its value. Each group of rules that share no field
/// (`SuggestionSearch.groups`) is weighed on its own.
///
/// The rules: a value is confirmed, or replaces the reading, only when one rule pins it (its other numbers
/// read sure, noted nothing and kept; no other listed value satisfies it); a reading the reader noted
/// anything on is never raised, but for a count only the range chose; a sure reading is replaced only when
/// two sums vouch for the other value (`sureReplacementSums`). A replaced value stays flagged, and the
/// other numbers of a sum it mends alone stay flagged unless it explains the sum (`secondChoiceExplains`).
public struct SumCorroboration {
    public let search: SuggestionSearch
    /// Fields read with less confidence are flagged; a rule's other fields must reach it to pin a value.
    public var minConfidence: Double
    /// The most consistent combinations weighed; the search's `budget` and `plausibility` end it sooner.
    public var limit = 200
    /// How many sums must vouch for a value (`vouchingSums`) for it to replace a sure reading, and for a
    /// rule it mends to flag no other number. One sum is not enough: in a clears column, the only sum its
    /// numbers are in, a wrong total can be made to agree with a wrong period.
    public var sureReplacementSums = 2
    /// The most numbers a sum may have to raise a doubtful number that no second sum reads over the line
    /// on its own word. Each of the sum's other numbers may be a sure misread the doubtful one balances,
    /// and a box score's thirteen-number column has twelve of them; a lacrosse clears column has six
    /// numbers.
    public var largestOneSumPin = 6
    /// The least probability the network must have given a value the sums chose, as its second choice, for
    /// that value alone to explain the sum it mends, so that the sum's other numbers keep their confidence
    /// when fewer than `sureReplacementSums` sums vouch for it. For a sure number elsewhere in the sum to
    /// be the real misread, the network's runner-up would have to be worth exactly that misread; if it is,
    /// the reviewer still sees the chosen value flagged, and putting back the ink's reading breaks the sum.
    /// Not a third choice (one was made to balance two sure misreads), not when two values the sums chose
    /// are in the sum or it still breaks (together they can balance a misread), and not on a sheet where a
    /// broken group has no combination of the alternatives to mend it: that sheet holds a sure misread the
    /// network offered nothing for, so a runner-up that balances a sum may be a coincidence
    /// (`BrokenRuleFlags`). Only sums (not `saves <= shots`), whatever their size: unlike a doubtful number
    /// raised on one sum's word (`largestOneSumPin`), the value must also be the network's own runner-up.
    public var secondChoiceExplains = 0.1

    public init(search: SuggestionSearch, minConfidence: Double = 70) {
        self.search = search
        self.minConfidence = minConfidence
    }

    public func corroborate(_ readings: [(id: String, reading: FieldReading)]) -> [(id: String, reading: FieldReading)] {
        var weighed = Dictionary(uniqueKeysWithValues: readings.map { ($0.id, $0.reading) })
        var mendedByRunnerUp: [MendedByRunnerUp] = []
        var beyondTheAlternatives = false
        for rules in search.groups {
            let group = corroborate(readings, under: rules)
            for (id, reading) in group.readings { weighed[id] = reading }
            mendedByRunnerUp += group.mendedByRunnerUp
            beyondTheAlternatives = beyondTheAlternatives || group.beyondTheAlternatives
        }
        // A sheet with a broken group no combination of the network's alternatives mends holds a sure
        // misread the network offered nothing for; there a runner-up balancing a sum explains nothing
        // (as a value filled in on one sum does not: `BrokenRuleFlags`).
        for mended in mendedByRunnerUp {
            guard var reading = weighed[mended.field] else { continue }
            if beyondTheAlternatives {
                reading.doubt(becauseOf: Self.addsUpOnlyWithNote(mended.rule, chosen: mended.chosen), line: minConfidence)
            } else {
                reading.notes.append("in \(mended.rule), which the value the sums chose for \(mended.chosen), its digits' second choice, mends")
            }
            weighed[mended.field] = reading
        }
        return readings.map { ($0.id, weighed[$0.id] ?? $0.reading) }
    }

    /// A sure number of a sum that a value the sums chose, the network's runner-up, mended alone
    /// (`secondChoiceExplains`): explained by it, unless the sheet holds a group beyond the alternatives.
    private struct MendedByRunnerUp {
        let field: String
        let rule: String
        let chosen: String
    }

    /// The fields of `rules` (one of `search.groups`) weighed with them; the readings of other fields are
    /// not returned. In a group larger than one search holds (a box score's shooting columns and points),
    /// only the numbers a failing rule reads are weighed, the others taken as read
    /// (`SuggestionSearch.searchable`).
    /// Also the numbers a runner-up mended (`MendedByRunnerUp`), left for the caller to doubt or not, and
    /// whether a rule of the group breaks with no combination of the alternatives to mend it.
    private func corroborate(_ readings: [(id: String, reading: FieldReading)], under rules: [CheckedRule])
        -> (readings: [(id: String, reading: FieldReading)], mendedByRunnerUp: [MendedByRunnerUp], beyondTheAlternatives: Bool) {
        let ruleFields = rules.fields
        let read = Dictionary(uniqueKeysWithValues: readings.map { ($0.id, $0.reading) })
        let values = read.mapValues(\.value)
        let broken = rules.filter { !search.holds(values, [$0]) }
        let variable = SuggestionSearch.searchable(readings.filter { ruleFields.contains($0.id) && $0.reading.alternatives.count > 1 },
                                                   failingFields: broken.fields)
        guard !variable.isEmpty else { return ([], [], false) }
        // A failing rule no weighed field reads (a context box left unticked) is for a person; it must not
        // keep the sums from weighing the numbers.
        let searched = Set(variable.map(\.id))
        let failing = broken.filter { !$0.fields.isDisjoint(with: searched) }
        let options = variable.map { Self.options($0.reading) }
        let found = search.consistentCombinations(variable, options: options, values: values, failing: failing, limit: limit)
        guard let best = found.first else { return ([], [], !failing.isEmpty) }

        // The readings as read, as the story that the paper itself breaks a rule. It does not vouch for the
        // numbers of the rules that break (one of them is wrong, which one is open), so a sure reading in a
        // broken row loses confidence; the broken rule flags it anyway.
        let slip = failing.isEmpty ? 0 : best.probability / best.relativeToRead * search.slipRate
        let total = found.reduce(slip) { $0 + $1.probability }
        let failingFields = failing.fields
        func value(_ id: String, in combination: SuggestionSearch.Combination) -> FieldValue? {
            combination.changes.first { $0.field == id }?.to ?? values[id]
        }
        /// The probability that field `id` holds `v`, over the stories weighed.
        func posterior(_ id: String, _ v: FieldValue) -> Double {
            let mass = found.reduce(0) { value(id, in: $1) == v ? $0 + $1.probability : $0 }
            return (mass + (v == values[id] && !failingFields.contains(id) ? slip : 0)) / total
        }
        func keptSure(_ id: String) -> Bool {
            guard let reading = read[id] else { return false }
            return reading.confidence >= minConfidence && reading.notes.isEmpty && value(id, in: best) == values[id]
        }
        /// Every field of `rule` but `id` was read sure, with no note, and keeps its reading.
        func othersKeptSure(_ rule: CheckedRule, _ id: String) -> Bool {
            rule.fields.allSatisfy { $0 == id || keptSure($0) }
        }
        var bestValues = values
        for change in best.changes { bestValues[change.field] = change.to }
        /// A rule pins a field's value when its other fields were read sure and are kept, and it holds for
        /// that value and for no other value the network listed: the rule, not chance, decides between them.
        func pinned(_ id: String, _ v: FieldValue, _ alternatives: [Alternative], byRulesOfAtMost size: Int = .max) -> Bool {
            rules.contains { rule in
                guard rule.fields.contains(id), rule.fields.count <= size, othersKeptSure(rule, id) else { return false }
                var trial = bestValues
                trial[id] = v
                guard search.holds(trial, [rule]) else { return false }
                return alternatives.allSatisfy { alternative in
                    guard alternative.value != v else { return true }
                    trial[id] = alternative.value
                    return !search.holds(trial, [rule])
                }
            }
        }

        /// The sums (equality rules) that read field `id` and whose other fields were read sure, with no
        /// note, and are kept: the ones whose word on `id` counts. An inequality (saves <= shots) is no
        /// sum: with saves read over shots it breaks beside the row's own balance, and the two would count
        /// one row twice.
        func sureSums(_ id: String) -> [CheckedRule] {
            rules.filter { $0.isSum && $0.fields.contains(id) && othersKeptSure($0, id) }
        }

        /// The sure sums that vouch for `v` in field `id`: they hold with `v` and break with the value read.
        func vouchingSums(_ id: String, _ v: FieldValue) -> Int {
            sureSums(id).filter { rule in
                var trial = values
                trial[id] = v
                guard search.holds(trial, [rule]) else { return false }
                trial[id] = values[id]
                return !search.holds(trial, [rule])
            }.count
        }

        var weighed = readings.filter { ruleFields.contains($0.id) }.map { entry in
            guard searched.contains(entry.id), let preferred = value(entry.id, in: best) else { return entry }
            var reading = entry.reading
            let alone = reading.confidence
            let offered = reading.alternatives.first { $0.value == reading.value }?.probability ?? 1
            // The reader doubted what it saw, not only which digit: it kept the confidence under the
            // network's probability (crossed out, much smaller than the rest, out of range, a date), or
            // noted something odd (stray marks set aside, two readings that disagree). Such a reading is
            // for a person, however well it adds up: on 377 hand-filled sheets, a crossed-out 3 whose
            // correction the sums confirmed, and a 1 lost with the box line that made a column add up.
            let readerDoubted = alone + 0.05 < 100 * offered || !reading.notes.isEmpty
            // The stories weigh only the values the network listed; what it left unlisted (a crossed-out
            // scribble's probabilities are spread thin) is the chance the field is none of them.
            let listed = min(1, reading.listedProbability)
            let withSums = 100 * listed * posterior(entry.id, preferred)
            if preferred == reading.value {
                let pinSize = search.readByTwoSums(entry.id) ? .max : largestOneSumPin
                // A count the range chose over an out-of-range first choice (an 11 whose flagged 1s read 77)
                // was doubted for which number it is, not for what the reader saw: a rule pins it as it
                // pins any doubtful reading: every range-chosen count that was wrong broke a sum.
                // Not a 0: to a sum a 0 and an empty box are the same, and a stray mark read 0 in an
                // overtime nobody played would log one.
                let rangeChoseIt = Self.onlyTheRangeChose(reading) && reading.value != .integer(0)
                let confirmed = (alone >= minConfidence || pinned(entry.id, preferred, reading.alternatives, byRulesOfAtMost: pinSize))
                    && (!readerDoubted || rangeChoseIt)
                Self.weigh(&reading, to: confirmed ? withSums : min(alone, withSums))
            } else {
                if alone < minConfidence || vouchingSums(entry.id, preferred) >= sureReplacementSums,
                   pinned(entry.id, preferred, reading.alternatives), !readerDoubted, withSums >= minConfidence {
                    reading.notes.append("\(Self.readFromSumsNote) \(reading.value) (confidence \(Int(alone.rounded()))); the sums make \(preferred) likelier")
                    reading.value = preferred
                    reading.confidence = withSums
                    // Still a person's to confirm: the network's own first choice was another number.
                    reading.flagged = true
                } else if !failingFields.contains(entry.id) {
                    // Read consistently, yet another value fits the sums better: the reading is in doubt, and
                    // its note says the sums doubt it, so that a flag under the line is not taken for the ink's.
                    Self.weigh(&reading, to: min(alone, 100 * listed * posterior(entry.id, reading.value)))
                }
                // A field of a broken rule left as read is flagged by that rule (unless one other number alone
                // explains the rule: SheetScanner), which also puts its confidence under the line.
            }
            return (entry.id, reading)
        }
        // A value read from the sums mends the rules that broke with the value read, and a mended rule
        // flags nothing. When fewer than `sureReplacementSums` sums vouch for that value, one of the rule's
        // other numbers may be the misread the value was made to balance (a clears read 8 at 0.99 where 3
        // was written, and the doubtful total moved to agree with it): such a number stays flagged unless
        // another sum, all of whose numbers were read sure and kept, holds with it, or the value alone mends
        // the rule and was the network's runner-up (`secondChoiceExplains`). Two sums that both hold with
        // the value leave no number of theirs unexplained.
        func confirmedElsewhere(_ id: String, besides mended: CheckedRule) -> Bool {
            rules.contains { rule in
                rule.id != mended.id && rule.isSum && rule.fields.contains(id) && rule.fields.allSatisfy(keptSure)
                    && search.holds(values, [rule])
            }
        }
        let chosenBySums = weighed.filter { Self.readFromSums($0.reading) }.map(\.id)
        var chosenValues = values
        for entry in weighed { chosenValues[entry.id] = entry.reading.value }
        var mendedByRunnerUp: [MendedByRunnerUp] = []
        for entry in weighed where Self.readFromSums(entry.reading) {
            guard vouchingSums(entry.id, entry.reading.value) < sureReplacementSums else { continue }
            for rule in failing where rule.fields.contains(entry.id) {
                // The one value the sums chose in a sum, which holds with it: the runner-up mends it alone.
                let alone = rule.isSum && rule.fields.filter(chosenBySums.contains).count == 1 && search.holds(chosenValues, [rule])
                    && isSecondChoice(entry.reading, asRead: values[entry.id])
                for i in weighed.indices where weighed[i].id != entry.id && rule.fields.contains(weighed[i].id)
                    && !weighed[i].reading.flagged && !confirmedElsewhere(weighed[i].id, besides: rule) {
                    if alone {
                        mendedByRunnerUp.append(MendedByRunnerUp(field: weighed[i].id, rule: rule.name, chosen: entry.id))
                    } else {
                        weighed[i].reading.doubt(becauseOf: Self.addsUpOnlyWithNote(rule.name, chosen: entry.id), line: minConfidence)
                    }
                }
            }
        }
        return (weighed, mendedByRunnerUp, false)
    }

    /// The note of a sure number whose sum adds up only with a value the sums chose for another of its
    /// numbers, which may have been made to balance this one's misread.
    static func addsUpOnlyWithNote(_ rule: String, chosen: String) -> String {
        "in \(rule), which adds up only with the value the sums chose for \(chosen)"
    }

    /// True when the value the sums chose is the one the network liked best after the value read, and gave
    /// at least `secondChoiceExplains`.
    func isSecondChoice(_ reading: FieldReading, asRead: FieldValue?) -> Bool {
        let others = reading.alternatives.filter { $0.value != asRead }
        guard let runnerUp = others.max(by: { $0.probability < $1.probability }) else { return false }
        return runnerUp.value == reading.value && runnerUp.probability >= secondChoiceExplains
    }

    /// The note of a count the range chose over the network's first choice, a number the range rules out
    /// ("72, the digits' first choice (confidence 60), is outside 0–49": a 1 with a long flag read as 7).
    /// Notes are the one record of the reader's doubts a reading carries (and the store keeps), so the
    /// weighing knows this one by its wording, built here for both.
    public static func rangeChoseNote(firstChoice: FieldValue, probability: Double, range: ClosedRange<Int>) -> String {
        "\(firstChoiceNote(firstChoice, probability: probability)) is outside \(range.lowerBound)–\(range.upperBound)"
    }

    /// The digits' first choice, named in the note of a value the range or the window of game dates chose
    /// over it.
    public static func firstChoiceNote(_ value: FieldValue, probability: Double) -> String {
        "\(value), the digits' first choice (confidence \(Int((100 * probability).rounded()))),"
    }

    /// True when the range chose the reading's value and the reader doubted nothing else about it.
    static func onlyTheRangeChose(_ reading: FieldReading) -> Bool {
        guard reading.notes.count == 1, case .integer = reading.value else { return false }
        let note = reading.notes[0]
        return note.contains(", the digits' first choice (confidence ") && note.contains("), is outside ")
    }

    /// Gives a reading the confidence the sums weigh for its own value and, when that moves it by a point
    /// or more, the note that keeps what it had alone (`withTheSumsNote`).
    static func weigh(_ reading: inout FieldReading, to confidence: Double) {
        let alone = reading.confidence
        reading.confidence = confidence
        if abs(confidence - alone) >= 1 {
            reading.notes.append(withTheSumsNote(confidence, alone: alone))
        }
    }

    /// The note of a reading whose confidence the sums moved: "confidence 55 with the sums, 97 alone".
    static func withTheSumsNote(_ confidence: Double, alone: Double) -> String {
        "confidence \(Int(confidence.rounded()))\(withTheSumsInfix)\(Int(alone.rounded())) alone"
    }

    private static let withTheSumsInfix = " with the sums, "

    /// The confidence the reading had alone, before the sums moved it (`withTheSumsNote`), if they did.
    public static func confidenceAlone(_ reading: FieldReading) -> Double? {
        reading.aloneConfidence(inNoteWith: withTheSumsInfix)
    }

    /// True for the note `withTheSumsNote` writes, and only for it.
    public static func isWithTheSumsNote(_ note: String) -> Bool {
        note.hasPrefix("confidence ") && note.contains(withTheSumsInfix) && note.hasSuffix(" alone")
    }

    /// How the note of a value read from the sums, in place of the network's first choice, begins.
    public static let readFromSumsNote = "the digits alone read"

    /// True when the sums replaced the network's first choice for this reading.
    public static func readFromSums(_ reading: FieldReading) -> Bool {
        reading.notes.contains { $0.hasPrefix(readFromSumsNote) }
    }

    /// A field's alternatives, most probable first, with the value read at no more than the reader's
    /// confidence: the reader lowers it below the network's probability when it doubts what it saw.
    static func options(_ reading: FieldReading) -> [Alternative] {
        reading.alternatives.map { alternative in
            alternative.value == reading.value
                ? Alternative(value: alternative.value, probability: SuggestionSearch.readProbability(reading)) : alternative
        }.sorted { $0.probability > $1.probability }
    }
}
