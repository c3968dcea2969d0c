import Foundation
import SheetModel

/// Which numbers a sheet's broken rules flag, and, on handwriting, the suggestion's values filled in.
///
/// A broken sum means one of its numbers is wrong, however confidently it was read: every number a failing
/// rule reads is flagged and put under the review line, unless something explains the break:
/// - one number alone explains a group of failing rules (its row and its column demand the same other
///   value of it: `SuggestionSearch.soleSuspects`), when the likeliest repair changes no other number;
/// - on handwriting, where the ink is the likelier culprit, the suggestion's values are filled in, flagged
///   (`SuggestionSearch.fillableChanges`, `FieldReading.fillIn`), and explain the rules they make hold;
///   not a sum two or more one-sum values mend, nor any on a sheet with a group beyond repair (`beyondRepair`).
/// The explained rule's other numbers, a 0 or an empty box included, keep the confidence their ink earned
/// (`inkAlone`). A sum nothing explains still names the numbers one misread of which could have broken it
/// (`possibleCulprits`): on handwriting, a number the reader was sure of (`readerSure`) that is none of
/// them, or that holds a small enough share of the blame (`unlikelyCulprits`), keeps its confidence.
/// Two misreads in one sum can hide each other from this; the network's doubt guards that.
/// The measurements behind each rule: docs/decisions.md, "Flags and the sums".
struct BrokenRuleFlags {
    let search: SuggestionSearch
    let rules: ParsedRules
    /// The review line: a confidence under it is flagged.
    let line: Double
    let today: Date

    /// - Parameters:
    ///   - fields: the readings as they stand (weighed with the sums, flagged under the line); failing
    ///     rules' flags and notes are added, and the filled-in values put in.
    ///   - read: the same fields as the reader gave them, before the sums weighed them.
    ///   - weighed: as the sums left them, before the review line flagged anything.
    ///   - failures: the rules `fields`' values break.
    ///   - fillIn: whether the suggestion's fillable values are filled in (handwriting:
    ///     `SuggestionSearch.fillableChanges`).
    ///   - beyondRepair: the failing rules no repair mends (`SuggestionOutcome.partial`). The sheet then
    ///     holds a sure misread the network offered nothing for, so a value filled in on a number one sum
    ///     reads explains nothing: the sum's sure numbers may hold another.
    func apply(to fields: inout [(id: String, reading: FieldReading)], read: [FieldReading], weighed: [FieldReading],
               failures: [RuleFailure], suggestion: Suggestion?, fillIn: Bool, beyondRepair: [String] = []) {
        let values = Dictionary(uniqueKeysWithValues: fields.map { ($0.id, $0.reading.value) })
        let suspects = search.soleSuspects(values, failing: failures.map(\.rule), likeliestRepair: suggestion)
        let filled = fillIn ? fillable(suggestion, values: values, failures: failures) : []
        var filledValues = values
        for change in filled { filledValues[change.field] = change.to }
        let holdFilledIn = Set(failures.map(\.rule)).subtracting(
            RuleCheck(template: search.template, rules: rules, values: filledValues, today: today).failures().map(\.rule))
        // A number the suggestion would change is a suspect itself: it explains nothing and nothing explains it.
        let suggested = Set(suggestion?.changes.map(\.field) ?? [])
        // Per failing rule, the numbers that explain it and how to say so.
        let explanations = Dictionary(uniqueKeysWithValues: failures.map { failure -> (String, (by: Set<String>, words: String)) in
            if let suspect = suspects.first(where: { $0.rules.contains(failure.rule) }) {
                return (failure.rule, ([suspect.field], "\(suspect.field) alone explains"))
            }
            let mending = holdFilledIn.contains(failure.rule) ? Set(filled.map(\.field)).intersection(failure.fields) : []
            // Two values filled in on numbers no second sum reads can together balance a sure misread
            // elsewhere in their sum (+5 and +1 against a total read 6 over): such a sum is explained by
            // nothing. One such value would have to match the misread on its own — which it did, once,
            // on a sheet whose other column no repair mended (an assists 6 whose runner-up 1 balanced a 2
            // read 7 at 0.99), so on such a sheet it explains nothing either.
            let oneSum = mending.filter { !search.readByTwoSums($0) }.count
            let by = oneSum > 1 || oneSum == 1 && !beyondRepair.isEmpty ? [] : mending
            return (failure.rule, (by, "the suggestion filled in for \(by.sorted().joined(separator: ", ")) mends"))
        })
        let ids = fields.map(\.id)
        let sure = Self.losingOnlyOnes(ids, read: read, values: values)
        let culprits = fillIn && !failures.isEmpty
            ? possibleCulprits(failures, unexplained: { explanations[$0]?.by.isEmpty ?? true }, values: values, sure: sure)
            : [:]
        let outweighed = beyondRepair.isEmpty
            ? unlikelyCulprits(failures.filter { culprits[$0.rule] != nil }, fields: ids, read: read, values: values, sure: sure)
            : [:]
        for i in fields.indices {
            let id = fields[i].id
            let broken = failures.filter { $0.fields.contains(id) }
            func explained(_ failure: RuleFailure) -> Bool {
                let by = explanations[failure.rule]?.by ?? []
                return !by.isEmpty && !by.contains(id) && !suggested.contains(id)
            }
            // A number the reader was sure of, and nothing else doubts, that no one misread of could have
            // broken the sum.
            let clearable = !suggested.contains(id) && Self.readerSure(of: read[i])
                && Self.onlyTheBreakDoubts(read[i], weighed: weighed[i], line: line)
            func cleared(_ failure: RuleFailure) -> Bool {
                clearable && (culprits[failure.rule].map { !$0.contains(id) } ?? false || unlikely(failure))
            }
            func unlikely(_ failure: RuleFailure) -> Bool { outweighed[failure.rule]?.contains(id) ?? false }
            // The sums lowered its confidence because its rule broke; another number explains the break, or
            // could not have broken it.
            if !broken.isEmpty, broken.allSatisfy({ explained($0) || cleared($0) }),
               let ink = Self.inkAlone(read[i], weighed: weighed[i], line: line) {
                fields[i].reading = ink
            }
            for failure in broken {
                if explained(failure) {
                    fields[i].reading.notes.append("in failing rule \(failure.rule), which \(explanations[failure.rule]!.words)")
                } else if cleared(failure) {
                    let possible = culprits[failure.rule]!.subtracting([id]).sorted().joined(separator: ", ")
                    let why = culprits[failure.rule]!.contains(id) ? Self.unlikelyCulpritNote : "no single misread of this number could"
                    fields[i].reading.notes.append("in failing rule \(failure.rule), which a misread of \(possible) could explain; \(why)")
                } else {
                    fields[i].reading.doubt(becauseOf: "in failing rule \(failure.rule)", line: line)
                }
            }
        }
        for suspect in suspects {
            guard let i = fields.firstIndex(where: { $0.id == suspect.field }) else { continue }
            fields[i].reading.notes.append("its failing rules all add up if it is \(suspect.value.inNotes)")
        }
        for change in filled {
            guard let i = fields.firstIndex(where: { $0.id == change.field }) else { continue }
            fields[i].reading.fillIn(change, line: line)
        }
    }

    /// The suggestion's changes to fill in (`SuggestionSearch.fillableChanges`), or none when filling them in
    /// alone would break a rule the sheet as read keeps: the values stored must not break a rule unflagged.
    func fillable(_ suggestion: Suggestion?, values: [String: FieldValue], failures: [RuleFailure]) -> [Suggestion.Change] {
        guard let suggestion else { return [] }
        let changes = search.fillableChanges(suggestion)
        guard changes.count < suggestion.changes.count else { return changes }
        var filled = values
        for change in changes { filled[change.field] = change.to }
        let broken = Set(failures.map(\.rule))
        let after = RuleCheck(template: search.template, rules: rules, values: filled, today: today).failures()
        return after.allSatisfy { broken.contains($0.rule) } ? changes : []
    }

    /// Per failing sum nothing explains (`unexplained`, by rule id), the numbers one misread of which could
    /// have broken it, as read (`SuggestionSearch.possibleCulprits`); a sum with none has no entry.
    ///
    /// That includes a sum values filled in mend but do not explain (two of them in one column, or a sheet
    /// another sum of which is beyond repair). Such a value is not trusted to be the misread, but the sum
    /// as read is still one misread's arithmetic: the number really misread is among the possible culprits,
    /// as in any sum nothing explains, and the value filled in is flagged with them.
    ///
    /// `sure` holds the numbers the network was sure of, as read: of those, only a lost 1 is a misread.
    func possibleCulprits(_ failures: [RuleFailure], unexplained: (String) -> Bool,
                          values: [String: FieldValue], sure: Set<String>) -> [String: Set<String>] {
        failures.reduce(into: [:]) { culprits, failure in
            guard unexplained(failure.rule),
                  let possible = search.possibleCulprits(ofSum: failure.rule, values: values, sure: sure), !possible.isEmpty else { return }
            culprits[failure.rule] = possible
        }
    }

    /// Per failing sum with possible culprits (`failing`), those the network makes unlikely to be its
    /// misread (`SuggestionSearch.culpritShares`, weighed as read): numbers the network was sure of
    /// (`sure`; never an empty box, whose digit may have been dropped whole), taken from the least blamed
    /// up while their shares together stay under `culpritShareLimit`, so that the chance any number
    /// released is the sum's misread stays under it. A sum a value of the sums' reads (not its ink's) is
    /// not weighed: its numbers as read are not what broke it.
    ///
    /// `apply` asks only on a sheet no group of sums of which is beyond repair: such a sheet holds a sure
    /// misread the network offered nothing for, so a runner-up that balances a sum may be a coincidence,
    /// as it is when a value filled in explains nothing there.
    func unlikelyCulprits(_ failing: [RuleFailure], fields ids: [String], read: [FieldReading],
                          values: [String: FieldValue], sure: Set<String>) -> [String: Set<String>] {
        let ink = Dictionary(uniqueKeysWithValues: zip(ids, read))
        return failing.reduce(into: [:]) { unlikely, failure in
            guard failure.fields.allSatisfy({ ink[$0]?.value == values[$0] }),
                  let shares = search.culpritShares(ofSum: failure.rule, readings: ink, sure: sure) else { return }
            var blame = 0.0
            var released: Set<String> = []
            for (id, share) in shares.filter({ sure.contains($0.key) }).sorted(by: { ($0.value, $0.key) < ($1.value, $1.key) }) {
                blame += share
                guard blame < Self.culpritShareLimit else { break }
                released.insert(id)
            }
            unlikely[failure.rule] = released
        }
    }

    /// The share of a broken sum's blame (`SuggestionSearch.culpritShares`) under which a number the
    /// reader was sure of keeps its ink's confidence: under 1 chance in 200 that it is the sum's misread.
    /// Measured, the shares mean what they say: numbers released at a given share were wrong about as
    /// often as their shares add up to (docs/decisions.md).
    static let culpritShareLimit = 0.005

    /// What a number the share clears is told.
    static let unlikelyCulpritNote = "the network makes this number under 1 chance in 200 the misread"

    /// The numbers a lost digit of can only be a 1 (`SuggestionSearch.possibleCulprits`): the network sure
    /// of what it saw, the reader noting nothing, the value still the ink's. Not an empty box: a faint digit
    /// the cleaning dropped whole leaves one too, and two such misreads are too few to say it is always a 1.
    static func losingOnlyOnes(_ ids: [String], read: [FieldReading], values: [String: FieldValue]) -> Set<String> {
        Set(zip(ids, read).filter { id, ink in networkSure(of: ink) && ink.notes.isEmpty && ink.value == values[id] }.map(\.0))
    }

    /// The most the network may give any other value of a number for a broken sum to rule it out as the
    /// sum's misread (`SuggestionSearch.possibleCulprits`). Two misreads in one sum can hide each other,
    /// and this doubt is what guards them: at 0.05, wrong numbers with a runner-up at 0.026 kept their
    /// confidence.
    static let runnerUpLimit = 0.01

    /// True when the digit network read the number and left less than `runnerUpLimit` to any other value:
    /// to each it listed, and to all it did not list together (a stray mark read as no digit, readings cut
    /// from the list).
    static func networkSure(of reading: FieldReading) -> Bool {
        guard let first = reading.alternatives.first, first.value == reading.value else { return false }
        let unlisted = 1 - reading.listedProbability
        return unlisted < runnerUpLimit && reading.alternatives.dropFirst().allSatisfy { $0.probability < runnerUpLimit }
    }

    /// True when the network was sure of the number (`networkSure`), or its boxes held no ink at all: an
    /// empty box read with nothing in it, not a speck, has no alternatives for the network to weigh, and is
    /// as sure a reading as the handwriting reader gives: empty overtimes and the unused rows of a box
    /// score, where the sum wants a negative number or two digits. An empty box a sum wants to hold one
    /// digit is still a possible culprit (a digit lost), and stays flagged.
    static func readerSure(of reading: FieldReading) -> Bool {
        networkSure(of: reading) || reading.value == .empty && reading.alternatives.isEmpty && reading.notes.isEmpty
            && reading.confidence >= HandwrittenDigitReader.inklessConfidence
    }

    /// The reading as the ink gave it, for a number of a broken rule another number explains, when the sums
    /// did no more than lower its confidence for the break (a reading in a broken row loses confidence:
    /// `SumCorroboration`); nil when the reader or the sums doubted it for anything else (a note of the
    /// reader's, a value of the sums', a flag, the ink under the line).
    static func inkAlone(_ ink: FieldReading, weighed: FieldReading, line: Double) -> FieldReading? {
        onlyTheBreakDoubts(ink, weighed: weighed, line: line) && weighed.confidence < ink.confidence ? ink : nil
    }

    /// True when nothing but a broken rule doubts the number: its ink, over the line, carries no note of the
    /// reader's, and the sums at most lowered its confidence for the break.
    static func onlyTheBreakDoubts(_ ink: FieldReading, weighed: FieldReading, line: Double) -> Bool {
        ink.notes.isEmpty && ink.confidence >= line && !weighed.flagged && weighed.value == ink.value
            && weighed.notes.allSatisfy(SumCorroboration.isWithTheSumsNote)
    }
}
