import Foundation
import SheetModel

/// Which numbers a sheet's broken rules flag, and, on handwriting, the suggestion's values filled in.
///
/// A broken sum means one of its numbers is wrong, however confidently it was read: every field a failing
/// rule reads is flagged, so no misread hides behind a high confidence. But when another number explains
/// the break, the rest keep the confidence their ink earned and are told why their rule fails:
/// - one number alone explains a group of failing rules (the row and the column through it both demand the
///   same other value of it: `SuggestionSearch.soleSuspects`). On the nine hand-filled goalie sets (525
///   sheets) there were 128 such groups: the paper held what the sums demanded of the suspect in all 128,
///   and the numbers no longer flagged were all right. Not when the likeliest repair changes another
///   number of the group (three misreads can add up to one);
/// - on handwriting the ink is the likelier culprit when a sum breaks, so the suggestion's values are
///   filled in, flagged, with the digits' reading in a note (`SuggestionSearch.fillableChanges`,
///   `FieldReading.fillIn`): the reviewer finds the likeliest numbers in place and confirms them
///   (`ReviewSession` asks before approving a value the ink did not give). A rule those values make hold
///   is explained by them. That includes a number only one sum reads (a clears column, a box score's
///   rebounds), filled in only when the network itself gave the value 0.05 or more
///   (`SuggestionSearch.oneSumFillProbability`; 0.1 when the counts below were taken): the sum alone
///   cannot say which of its numbers is wrong, but the network's second choice matching the break
///   exactly can.
///   For a sure number elsewhere in the sum to be the real misread, the filled-in number would have to
///   hold a likely second reading worth exactly that misread. On the twenty hand-filled eval sets (28,185
///   numbers) 42 such sums were mended by one number each: the value filled in was right in all 42, and
///   so was every other number of those sums (294 flags, 167 of them on the seventeen sets' sheets, most
///   of the rest numbers a broken rule or the reader doubt for other reasons). That bounds the rate at
///   which the story fails at about 7% (none in 42), and one writer's misreads are not independent: a
///   writer whose 1s read as 7s can misread a total by +6 where a period's true 1 lists 7 second. If one
///   ever is wrong, the reviewer still sees the value filled in, flagged, and restoring the ink's reading
///   breaks the sum again in front of them. A sum two or more such values mend is explained by none, and
///   so is one on a sheet where another group of sums is beyond repair (`beyondRepair`), where the story
///   once failed.
///
/// And a sum nothing explains still says which of its numbers could have broken it: with one misread in it,
/// the wrong number is one whose value under which the sum holds, the others as read, is one misread away
/// from what was read (`SuggestionSearch.possibleCulprits`: a column 6 over was not broken by its 3). On
/// handwriting, a number the reader was sure of (`readerSure`) and nothing else doubts, that no one
/// misread of could have broken the sum, keeps its ink's confidence; the ones that could stay flagged,
/// and so does a value filled in that mends a sum without explaining it. Two misreads in a sum can
/// hide each other from this, and the network's doubt is what guards that: on the twenty hand-filled eval
/// sets, without asking which number could have broken the sum 34 wrong numbers would have kept their
/// confidence, with a limit of 0.05 two (each with a second reading at 0.026), at 0.01 none, for 579
/// fewer flags over the twenty-four sets (seventeen sets: 10.15% → 8.70% flagged, the same 3 wrong and
/// unflagged; `statsheet eval`).
///
/// A 0 or an empty box is explained like any other number. (It once was not: a sum cannot tell them
/// apart, so a stray mark read 0 in an overtime nobody played would pass. But it passes just the same in a
/// sum that holds; a number the break is explained by is held to that standard, its ink's.) On the twenty
/// hand-filled eval sets that flagged 363 numbers fewer (318 on the seventeen), every one of them right.
///
/// Measured on the seventeen hand-filled eval sets (22,855 numbers; `statsheet eval`): filling in set 180
/// numbers right and none wrong. Explained numbers keeping their ink's confidence (`inkAlone`) flag 177
/// numbers fewer, rules the filled-in values make hold 50, both together 431 (17.03% → 15.14% flagged),
/// with the same 6 wrong and unflagged.
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
    /// as in any sum nothing explains, and the value filled in is flagged with them. (Until 2026-11-25 such
    /// sums ruled nothing out. On the twenty-four hand-filled eval sets ruling them out as read keeps the
    /// confidence of 131 more numbers, all right: `statsheet eval`.)
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
    ///
    /// The share means what it says. On the twenty-eight hand-filled eval sets (38,665 numbers; a
    /// throwaway build releasing each number alone up to 0.1, on every sheet, and noting its share),
    /// numbers released at 0.01–0.03 were wrong 2 times in 63 (their shares add up to 1.1), at 0.03–0.1
    /// 3 times in 83 (5.5), and under 0.01 never in 345 (0.6). The two wrong ones nearest took 0.0105
    /// and 0.012 (a 2 read 7 and a 7 read 1, each beside a sure 1 whose runner-up balanced the sum); the
    /// nearer stood on a sheet another group of which is beyond repair (`unlikelyCulprits`). As shipped
    /// (the bound per sum, sure numbers only, no such sheets), flags on the seventeen sets fell from
    /// 8.10% to 7.93%, and from 9.25% to 8.92% on the eleven later ones, with the same numbers right and
    /// the same 3 and 3 wrong and unflagged (`statsheet eval`).
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
    /// sum's misread (`SuggestionSearch.possibleCulprits`). At 0.05, two wrong numbers of the twenty eval
    /// sets, each beside a second misread in its sum and with a runner-up at 0.026, would have kept their
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
    /// as sure a reading as the handwriting reader gives. On the twenty hand-filled eval sets that rules
    /// out 102 more numbers, all of them right: empty overtimes and the unused rows of a box score, where
    /// the sum wanted a negative number or two digits. An empty box a sum wants to hold one digit is still
    /// a possible culprit (a digit lost), and stays flagged.
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
