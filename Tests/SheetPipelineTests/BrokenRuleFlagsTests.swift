import Foundation
import Testing
@testable import SheetModel
@testable import SheetPipeline

/// Which numbers a broken rule flags, and the suggestion filled in on handwriting, on a lacrosse sheet
/// whose q2 and q3 saves were misread (12 read 17, 4 read 9): no one number explains the three rules
/// that break, so without the suggestion every number they read is flagged.
@Suite struct BrokenRuleFlagsTests {
    static let template = try! Fixtures.lacrosse()
    static let line = 70.0
    /// The lacrosse template's broken-rule flags, at the review line.
    static var flags: BrokenRuleFlags {
        BrokenRuleFlags(search: SuggestionSearch(template: template), rules: ParsedRules(template), line: line, today: Date())
    }

    /// The readings (as read, as the sums left them, and flagged under the line), the failing rules and
    /// the suggestion. The sums lowered q2.goals (ink 97) to 55 because its row broke.
    ///
    /// With `runnerUps`, the digit network read every count, giving each its value and one other, at the
    /// probability `runnerUps` has for the field or 0.005, and leaving `unlisted` unlisted. `blank` fields
    /// were left empty on paper; `inkConfidence` gives a field the reader was unsure of its confidence.
    static func sheet(misreads: [String: Int], probability: Double = 0.2, runnerUps: [String: Double]? = nil,
                      unlisted: [String: Double] = [:], blank: Set<String> = [], inkConfidence: [String: Double] = [:])
        -> (read: [FieldReading], weighed: [FieldReading],
                                                   fields: [(id: String, reading: FieldReading)], failures: [RuleFailure],
                                                   suggestion: Suggestion) {
        var changes: [Suggestion.Change] = []
        let read = template.fields.map { spec -> FieldReading in
            var value = blank.contains(spec.id) ? .empty : Fixtures.game[spec.id] ?? .empty
            if let misread = misreads[spec.id] {
                changes.append(.init(field: spec.id, from: .integer(misread), to: value, probability: probability))
                value = .integer(misread)
            }
            let confidence = inkConfidence[spec.id] ?? 97
            var reading = FieldReading(value: value, text: value.writtenText ?? "", confidence: confidence,
                                       notes: confidence < line ? ["confidence \(Int(confidence)) is under 70"] : [])
            // An empty box held no ink: the reader asks the network nothing about it.
            if let runnerUps, spec.kind == .count, value != .empty {
                let other: FieldValue = if case .integer(let i) = value { .integer(i + 1) } else { .integer(1) }
                let p = runnerUps[spec.id] ?? 0.005, left = unlisted[spec.id] ?? 0
                reading.alternatives = [Alternative(value: value, probability: 1 - p - left), Alternative(value: other, probability: p)]
            }
            return reading
        }
        var weighed = read
        let goals = template.fields.firstIndex { $0.id == "q2.goals" }!
        weighed[goals].confidence = 55
        weighed[goals].notes = ["confidence 55 with the sums, 97 alone"]
        let fields = zip(template.fields, weighed).map { spec, reading in
            var reading = reading
            SheetScanner.flagUnderTheLine(&reading, line: line)
            return (id: spec.id, reading: reading)
        }
        let values = Dictionary(uniqueKeysWithValues: fields.map { ($0.id, $0.reading.value) })
        let failures = RuleCheck(template: template, values: values, today: Date()).failures()
        return (read, weighed, fields, failures, Suggestion(probability: 0.04, relativeToRead: 0.05, changes: changes))
    }

    static func apply(misreads: [String: Int], probability: Double = 0.2, runnerUps: [String: Double]? = nil,
                      unlisted: [String: Double] = [:], blank: Set<String> = [], inkConfidence: [String: Double] = [:],
                      fillIn: Bool, beyondRepair: [String] = []) -> [String: FieldReading] {
        let s = sheet(misreads: misreads, probability: probability, runnerUps: runnerUps, unlisted: unlisted, blank: blank,
                      inkConfidence: inkConfidence)
        var fields = s.fields
        flags.apply(to: &fields, read: s.read, weighed: s.weighed, failures: s.failures, suggestion: s.suggestion, fillIn: fillIn,
                   beyondRepair: beyondRepair)
        return Dictionary(uniqueKeysWithValues: fields.map { ($0.id, $0.reading) })
    }

    @Test func theSuggestionIsFilledInFlaggedAndTheRulesItMendsFlagNoSureNumber() throws {
        let misreads = ["q2.saves": 17, "q3.saves": 9]
        #expect(Set(Self.sheet(misreads: misreads).failures.map(\.rule)).isSuperset(of: ["q2.balance", "q3.balance", "saves.periods-sum"]))
        let after = Self.apply(misreads: misreads, fillIn: true)
        let q2 = try #require(after["q2.saves"])
        #expect(q2.value == .integer(12) && q2.text == "17" && q2.flagged && q2.confidence < 70)
        #expect(q2.notes.last == "the digits alone read 17 (confidence 97); filled in from the sheet's suggestion: 12")
        #expect(after["q3.saves"]?.value == .integer(4) && after["q3.saves"]?.flagged == true)
        // Sure numbers of the rules the filled-in values mend are not flagged, and say why their rule failed.
        for id in ["q2.shots", "q3.shots", "q1.saves", "q4.saves", "total.saves"] {
            let reading = try #require(after[id])
            #expect(!reading.flagged && reading.confidence == 97, "\(id): \(reading.notes)")
            #expect(reading.notes.contains { $0.hasPrefix("in failing rule ") && $0.contains("which the suggestion filled in for") }, "\(id)")
        }
        #expect(after["total.saves"]?.notes == ["in failing rule saves.periods-sum, which the suggestion filled in for q2.saves, q3.saves mends"])
        // The sums had lowered q2.goals only for its broken row: it keeps what its ink earned.
        let goals = try #require(after["q2.goals"])
        #expect(!goals.flagged && goals.confidence == 97, "\(goals.notes)")
        #expect(goals.notes == ["in failing rule q2.balance, which the suggestion filled in for q2.saves mends"])
        // A 0 and an empty box are explained like any number: read sure, they are as sure as in a sum that holds.
        for id in ["q3.goals", "ot.saves"] {
            let reading = try #require(after[id])
            #expect(!reading.flagged && reading.confidence == 97, "\(id): \(reading.notes)")
        }
    }

    /// Printed sheets get nothing filled in: every number of the broken rules is flagged, under the line.
    @Test func withoutFillingInEveryNumberOfTheBrokenRulesIsFlagged() throws {
        let after = Self.apply(misreads: ["q2.saves": 17, "q3.saves": 9], fillIn: false)
        #expect(after["q2.saves"]?.value == .integer(17))
        for id in ["q2.saves", "q2.shots", "q2.goals", "q3.shots", "q1.saves", "total.saves"] {
            let reading = try #require(after[id])
            #expect(reading.flagged && reading.confidence < 70, "\(id): \(reading.confidence) \(reading.notes)")
        }
    }

    /// A clears number is in one sum: its column says one of its numbers is wrong, not which. It is filled
    /// in only when the network gave the value 0.05 or more, and then it explains its column: the network's
    /// own second choice mends the break exactly, so the column's sure numbers keep their ink's confidence.
    /// Under 0.05 nothing is filled in and every clears number stays flagged.
    @Test func aNumberInOneSumIsFilledInAndExplainsItsSumOnlyWhenTheNetworkGaveTheValue() throws {
        let doubtful = Self.apply(misreads: ["q4.clears": 17], probability: 0.04, fillIn: true)
        #expect(doubtful.values.filter(\.filledInFromSuggestion).isEmpty)
        for id in ["q1.clears", "q2.clears", "q3.clears", "q4.clears", "total.clears"] {
            #expect(doubtful[id]?.flagged == true && doubtful[id]!.confidence < 70, "\(id)")
        }
        let likely = Self.apply(misreads: ["q4.clears": 17], probability: 0.3, fillIn: true)
        let filled = try #require(likely["q4.clears"])
        #expect(filled.value == .integer(11) && filled.filledInFromSuggestion && filled.flagged && filled.confidence < 70)
        // q2's 0 and the overtime's empty box too.
        for id in ["q1.clears", "q2.clears", "q3.clears", "ot.clears", "total.clears"] {
            let reading = try #require(likely[id])
            #expect(!reading.flagged && reading.confidence == 97, "\(id): \(reading.notes)")
            #expect(reading.notes == ["in failing rule clears.periods-sum, which the suggestion filled in for q4.clears mends"], "\(id)")
        }
        // On a sheet where another sum is beyond repair (a sure misread the network offered nothing for),
        // the value is still filled in, but explains nothing: the column's sure numbers may hold another.
        // The network listed nothing for these, so none is sure enough to be ruled out but the empty
        // overtime, which held no ink.
        let elsewhere = Self.apply(misreads: ["q4.clears": 17], probability: 0.3, fillIn: true, beyondRepair: ["saves.periods-sum"])
        #expect(elsewhere["q4.clears"]?.value == .integer(11) && elsewhere["q4.clears"]?.filledInFromSuggestion == true)
        for id in ["q1.clears", "q2.clears", "q3.clears", "total.clears"] {
            #expect(elsewhere[id]?.flagged == true && elsewhere[id]!.confidence < 70, "\(id)")
        }
        #expect(elsewhere["ot.clears"]?.flagged == false)
    }

    /// A sum nothing mends still says something of which number broke it. q4's clears 11 read 17 puts the
    /// column 6 over: the 3, the 0, the 5 and the empty overtime would have to be negative, and the total
    /// 25, two digits from its 19. The numbers the network was sure of (less than 0.01 left to any other
    /// value, listed or not) that one misread could not have made the culprit keep their ink's confidence;
    /// q4 stays flagged, and so does a number the network was less sure of, or the reader doubted itself.
    @Test func aSureNumberNoOneMisreadOfCouldHaveBrokenItsSumKeepsItsConfidence() throws {
        let misreads = ["q4.clears": 17]
        let after = Self.apply(misreads: misreads, probability: 0.04, runnerUps: [:], fillIn: true)
        #expect(after.values.filter(\.filledInFromSuggestion).isEmpty)
        for id in ["q1.clears", "q2.clears", "q3.clears", "ot.clears", "total.clears"] {
            let reading = try #require(after[id])
            #expect(!reading.flagged && reading.confidence == 97, "\(id): \(reading.notes)")
            #expect(reading.notes == ["in failing rule clears.periods-sum, which a misread of q4.clears could explain; no single misread of this number could"])
        }
        #expect(after["q4.clears"]?.flagged == true && after["q4.clears"]!.confidence < 70)
        // A second reading at 0.01, 0.02 left unlisted (a stray mark, say), the reader unsure: flagged.
        let doubted = Self.apply(misreads: misreads, probability: 0.04, runnerUps: ["q3.clears": 0.01], unlisted: ["q1.clears": 0.02],
                                 inkConfidence: ["total.clears": 64], fillIn: true)
        for id in ["q1.clears", "q3.clears", "total.clears"] {
            #expect(doubted[id]?.flagged == true && doubted[id]!.confidence < 70, "\(id)")
        }
        #expect(doubted["q2.clears"]?.flagged == false)
        // The network gave nothing: every number stays flagged.
        let unknown = Self.apply(misreads: misreads, probability: 0.04, fillIn: true)
        #expect(["q1.clears", "q2.clears", "total.clears"].allSatisfy { unknown[$0]?.flagged == true })
        // Nor on a printed sheet, where the scan neither fills in nor rules out.
        let printed = Self.apply(misreads: misreads, probability: 0.04, runnerUps: [:], fillIn: false)
        #expect(["q1.clears", "q2.clears", "total.clears"].allSatisfy { printed[$0]?.flagged == true })
        // q3's 5 read 6 puts it 1 over: q1 (as 2) and q4 (as 10) could be the misread as well, and stay
        // flagged; q2's 0, the empty overtime and the total (20 is two digits from 19) could not.
        let one = Self.apply(misreads: ["q3.clears": 6], probability: 0.04, runnerUps: [:], fillIn: true)
        #expect(["q1.clears", "q3.clears", "q4.clears"].allSatisfy { one[$0]?.flagged == true })
        #expect(["q2.clears", "ot.clears", "total.clears"].allSatisfy { one[$0]?.flagged == false })
    }

    /// A sure number the network makes an unlikely culprit keeps its confidence. q3's 5 read 6 puts the
    /// column 1 over, and q1's 3 (as 2) and q4's 11 (as 10) could each be the misread too. The network gave
    /// q3 a 5 at 0.045, and q1 a 2 and q4 a 10 nothing it listed (each taken at 1e-4): q1 and q4 take
    /// 0.0021 of the blame each, 0.0042 together, under 0.005. (The suggestion's 5 is offered at 0.02, too
    /// little to fill in on a number one sum reads.) q3 stays flagged: the network was not sure of it.
    /// Where another group of sums on the sheet is beyond repair, nobody is released this way.
    @Test func aSureNumberTheNetworkMakesAnUnlikelyCulpritKeepsItsConfidence() throws {
        func apply(fiveAt probability: Double, beyondRepair: [String] = []) throws -> [String: FieldReading] {
            let s = Self.sheet(misreads: ["q3.clears": 6], probability: 0.02, runnerUps: [:])
            var read = s.read, weighed = s.weighed, fields = s.fields
            let q3 = try #require(fields.firstIndex { $0.id == "q3.clears" })
            read[q3].alternatives = [Alternative(value: .integer(6), probability: 0.99 - probability),
                                     Alternative(value: .integer(5), probability: probability)]
            weighed[q3].alternatives = read[q3].alternatives
            fields[q3].reading.alternatives = read[q3].alternatives
            Self.flags.apply(to: &fields, read: read, weighed: weighed, failures: s.failures, suggestion: s.suggestion, fillIn: true,
                             beyondRepair: beyondRepair)
            return Dictionary(uniqueKeysWithValues: fields.map { ($0.id, $0.reading) })
        }
        let after = try apply(fiveAt: 0.045)
        #expect(after["q3.clears"]?.value == .integer(6) && after["q3.clears"]?.flagged == true)
        #expect(after["q1.clears"]?.notes == ["in failing rule clears.periods-sum, which a misread of q3.clears, q4.clears could explain; \(BrokenRuleFlags.unlikelyCulpritNote)"])
        #expect(after["q4.clears"]?.notes == ["in failing rule clears.periods-sum, which a misread of q1.clears, q3.clears could explain; \(BrokenRuleFlags.unlikelyCulpritNote)"])
        for id in ["q1.clears", "q4.clears", "q2.clears", "total.clears"] {
            #expect(after[id]?.flagged == false && after[id]?.confidence == 97, "\(id): \(after[id]?.notes ?? [])")
        }
        // The 5 at 0.02: q1 and q4 take 0.0048 each. The one taken first (q1) keeps its confidence; with
        // q4 the two would be 0.0097 to blame, and q4 stays flagged.
        let halfway = try apply(fiveAt: 0.02)
        #expect(halfway["q1.clears"]?.flagged == false && halfway["q4.clears"]?.flagged == true)
        // The 5 at 0.005: each takes 0.019, and both stay flagged.
        let unsure = try apply(fiveAt: 0.005)
        #expect(["q1.clears", "q3.clears", "q4.clears"].allSatisfy { unsure[$0]?.flagged == true })
        #expect(["q2.clears", "total.clears"].allSatisfy { unsure[$0]?.flagged == false })
        // The 5 at 0.045 again, on a sheet where another group of sums is beyond repair: the shares are
        // not used there (a sure misread the network offered nothing for stands elsewhere on the sheet),
        // so q1 and q4 stay flagged as possible culprits, while q2, which no one misread explains, does not.
        let elsewhereBeyondRepair = try apply(fiveAt: 0.045, beyondRepair: ["saves.periods-sum"])
        #expect(["q1.clears", "q3.clears", "q4.clears"].allSatisfy { elsewhereBeyondRepair[$0]?.flagged == true })
        #expect(["q2.clears", "total.clears"].allSatisfy { elsewhereBeyondRepair[$0]?.flagged == false })
        #expect(elsewhereBeyondRepair["q1.clears"]?.notes.contains { $0.contains(BrokenRuleFlags.unlikelyCulpritNote) } == false)
    }

    /// A digit lost from a number the reader was sure of is a 1: the total's 19 read 39 puts the column 20
    /// over, which the sure 3, 0 and 5 could only explain by each having lost a 2; they keep their confidence.
    /// q4's 11 (as 31) could be the misread, and the total itself.
    @Test func aSureNumberLosesOnlyAOne() throws {
        let after = Self.apply(misreads: ["total.clears": 39], probability: 0.04, runnerUps: [:], fillIn: true)
        for id in ["q1.clears", "q2.clears", "q3.clears", "ot.clears"] {
            #expect(after[id]?.flagged == false, "\(id): \(after[id]?.notes ?? [])")
            #expect(after[id]?.notes == ["in failing rule clears.periods-sum, which a misread of q4.clears, total.clears could explain; no single misread of this number could"])
        }
        #expect(["q4.clears", "total.clears"].allSatisfy { after[$0]?.flagged == true })
        // A reader's note on the 0 (a stray mark it ignored): a 20 it lost a 2 of could be the misread.
        let noted = Self.sheet(misreads: ["total.clears": 39], probability: 0.04, runnerUps: [:])
        var read = noted.read, weighed = noted.weighed, fields = noted.fields
        let q2 = try #require(fields.firstIndex { $0.id == "q2.clears" })
        read[q2].notes = ["1 stray mark ignored"]; weighed[q2].notes = read[q2].notes; fields[q2].reading.notes = read[q2].notes
        Self.flags.apply(to: &fields, read: read, weighed: weighed, failures: noted.failures, suggestion: noted.suggestion, fillIn: true)
        let withNote = Dictionary(uniqueKeysWithValues: fields.map { ($0.id, $0.reading) })
        #expect(withNote["q2.clears"]?.flagged == true)
        #expect(withNote["q3.clears"]?.notes == ["in failing rule clears.periods-sum, which a misread of q2.clears, q4.clears, total.clears could explain; no single misread of this number could"])
        // The reader unsure of the 3, a 23 it lost a 2 of could be the misread: it stays flagged.
        let unsure = Self.apply(misreads: ["total.clears": 39], probability: 0.04, runnerUps: ["q1.clears": 0.02], fillIn: true)
        #expect(unsure["q1.clears"]?.flagged == true && unsure["q2.clears"]?.flagged == false)
    }

    /// An empty box with no ink in it has no alternatives, the network was never asked: it is as sure as the
    /// reader gets, and ruled out like a sure number when the sum wants of it what no lost digit gives.
    @Test func anEmptyBoxThatHeldNoInkIsRuledOutLikeASureNumber() throws {
        // q4's 11 read 17: the column is 6 over, and the empty overtime would have to be −6.
        let over = Self.apply(misreads: ["q4.clears": 17], probability: 0.04, runnerUps: [:], fillIn: true)
        let overtime = try #require(over["ot.clears"])
        #expect(overtime.alternatives.isEmpty && !overtime.flagged && overtime.confidence == 97, "\(overtime.notes)")
        #expect(overtime.notes == ["in failing rule clears.periods-sum, which a misread of q4.clears could explain; no single misread of this number could"])
        // A speck in the box (the reader only 85 sure it is empty): not ruled out.
        let speck = Self.apply(misreads: ["q4.clears": 17], probability: 0.04, runnerUps: [:], inkConfidence: ["ot.clears": 85], fillIn: true)
        #expect(speck["ot.clears"]?.flagged == true && speck["ot.clears"]!.confidence < 70)
        // q3's 5 read 1: the column is 4 short, and a 4 lost from the overtime (too faint for the cleaning
        // to keep any of it) would explain it: flagged.
        let short = Self.apply(misreads: ["q3.clears": 1], probability: 0.04, runnerUps: [:], fillIn: true)
        #expect(short["ot.clears"]?.flagged == true && short["ot.clears"]!.confidence < 70, "\(short["ot.clears"]?.notes ?? [])")
    }

    /// A column a value filled in mends, but does not explain (here: on a sheet where another sum is beyond
    /// repair), is ruled out as read, like a column nothing explains: the value filled in is not trusted to
    /// be the misread, but the misread is one of the numbers one misread of which could have broken the
    /// column as read. Its q2 left blank, in a quarter that was played, is no culprit: a blank and a 0 are
    /// one in a sum.
    @Test func aSumAValueFilledInMendsButDoesNotExplainIsRuledOutAsRead() throws {
        let after = Self.apply(misreads: ["q4.clears": 17], probability: 0.3, runnerUps: [:], blank: ["q2.clears"], fillIn: true,
                               beyondRepair: ["saves.periods-sum"])
        #expect(after["q4.clears"]?.value == .integer(11) && after["q4.clears"]?.filledInFromSuggestion == true)
        #expect(after["q4.clears"]?.flagged == true)
        for id in ["q1.clears", "q2.clears", "q3.clears", "ot.clears", "total.clears"] {
            #expect(after[id]?.flagged == false && after[id]?.confidence == 97, "\(id): \(after[id]?.notes ?? [])")
            #expect(after[id]?.notes == ["in failing rule clears.periods-sum, which a misread of q4.clears could explain; no single misread of this number could"])
        }
        // q3's 5 read 6, filled in as 5: the column as read is 1 over, and q1's 3 (as 2) or q4's 11 (as 10)
        // could be the misread as well: they stay flagged with q3; the blank q2, the overtime and the total not.
        let one = Self.apply(misreads: ["q3.clears": 6], probability: 0.3, runnerUps: [:], blank: ["q2.clears"], fillIn: true,
                             beyondRepair: ["saves.periods-sum"])
        #expect(one["q3.clears"]?.value == .integer(5) && one["q3.clears"]?.filledInFromSuggestion == true)
        #expect(["q1.clears", "q3.clears", "q4.clears"].allSatisfy { one[$0]?.flagged == true })
        #expect(["q2.clears", "ot.clears", "total.clears"].allSatisfy { one[$0]?.flagged == false })
    }

    /// A number the suggestion would change is a suspect: it is not ruled out, though one misread of it
    /// could not have broken the column (the search weighs more than one sum's arithmetic).
    @Test func aNumberTheSuggestionWouldChangeIsNotRuledOut() throws {
        let s = Self.sheet(misreads: ["q4.clears": 17], runnerUps: [:])
        let suggestion = Suggestion(probability: 0.01, relativeToRead: 0.01, changes: [
            .init(field: "q1.clears", from: .integer(3), to: .integer(0), probability: 0.02),
            .init(field: "q4.clears", from: .integer(17), to: .integer(14), probability: 0.02),
        ])
        var fields = s.fields
        Self.flags.apply(to: &fields, read: s.read, weighed: s.weighed, failures: s.failures, suggestion: suggestion, fillIn: true)
        let after = Dictionary(uniqueKeysWithValues: fields.map { ($0.id, $0.reading) })
        #expect(after["q1.clears"]?.flagged == true && after["q1.clears"]?.value == .integer(3))
        #expect(after["q3.clears"]?.flagged == false && after["total.clears"]?.flagged == false)
    }

    /// Two values filled in on one sum's numbers could together balance a sure misread elsewhere in it: the
    /// column is explained by neither, and every clears number the network listed nothing for stays
    /// flagged; only the empty overtime, which held no ink and would have to be −6, is ruled out.
    @Test func twoValuesFilledInOnOneSumExplainNothing() throws {
        let after = Self.apply(misreads: ["q1.clears": 8, "q3.clears": 6], probability: 0.3, fillIn: true)
        #expect(after["q1.clears"]?.value == .integer(3) && after["q3.clears"]?.value == .integer(5))
        #expect(after["q1.clears"]?.filledInFromSuggestion == true && after["q3.clears"]?.filledInFromSuggestion == true)
        for id in ["q2.clears", "q4.clears", "total.clears"] {
            let reading = try #require(after[id])
            #expect(reading.flagged && reading.confidence < 70, "\(id): \(reading.notes)")
        }
        #expect(after["ot.clears"]?.flagged == false)
        // The network sure of every number: as read the column is 6 over, which q1's 8 (as 2) or q3's 6 (as
        // 0) could explain; the 0, the 11 and the 19 could not have broken it, and keep their confidence.
        let sure = Self.apply(misreads: ["q1.clears": 8, "q3.clears": 6], probability: 0.3, runnerUps: [:], fillIn: true)
        #expect(["q1.clears", "q3.clears"].allSatisfy { sure[$0]?.flagged == true && sure[$0]?.filledInFromSuggestion == true })
        for id in ["q2.clears", "q4.clears", "ot.clears", "total.clears"] {
            #expect(sure[id]?.flagged == false, "\(id): \(sure[id]?.notes ?? [])")
            #expect(sure[id]?.notes == ["in failing rule clears.periods-sum, which a misread of q1.clears, q3.clears could explain; no single misread of this number could"])
        }
    }

    /// Values filled in must not leave the sheet breaking a rule it kept as read, unflagged: when filling in
    /// only the fillable changes would (here q1.shots, whose row and column hold as read, and a clears
    /// change the network gave too little), nothing is filled in.
    @Test func nothingIsFilledInThatWouldBreakARuleTheSheetKeeps() throws {
        let s = Self.sheet(misreads: ["q2.saves": 17])
        let suggestion = Suggestion(probability: 0.01, relativeToRead: 0.01, changes: [
            .init(field: "q1.shots", from: .integer(11), to: .integer(12), probability: 0.3),
            .init(field: "q4.clears", from: .integer(11), to: .integer(12), probability: 0.04),
        ])
        let flags = Self.flags
        let values = Dictionary(uniqueKeysWithValues: s.fields.map { ($0.id, $0.reading.value) })
        #expect(flags.fillable(suggestion, values: values, failures: s.failures).isEmpty)
        var fields = s.fields
        flags.apply(to: &fields, read: s.read, weighed: s.weighed, failures: s.failures, suggestion: suggestion, fillIn: true)
        #expect(fields.first { $0.id == "q1.shots" }?.reading.value == .integer(11))
    }

    /// The ink's own reading comes back only when the sums did nothing but lower it for the break.
    @Test func theInksConfidenceComesBackOnlyWhenTheSumsMerelyLoweredIt() {
        let ink = FieldReading(value: .integer(4), text: "4", confidence: 96)
        var lowered = ink
        lowered.confidence = 50
        lowered.notes = ["confidence 50 with the sums, 96 alone"]
        #expect(BrokenRuleFlags.inkAlone(ink, weighed: lowered, line: 70) == ink)
        var replaced = lowered
        replaced.value = .integer(9)
        #expect(BrokenRuleFlags.inkAlone(ink, weighed: replaced, line: 70) == nil)
        var doubted = lowered
        doubted.flagged = true
        #expect(BrokenRuleFlags.inkAlone(ink, weighed: doubted, line: 70) == nil)
        let unclear = FieldReading(value: .integer(4), text: "4", confidence: 64)
        #expect(BrokenRuleFlags.inkAlone(unclear, weighed: lowered, line: 70) == nil)
        let noted = FieldReading(value: .integer(4), text: "4", confidence: 96, notes: ["1 stray mark ignored"])
        #expect(BrokenRuleFlags.inkAlone(noted, weighed: lowered, line: 70) == nil)
        var otherNote = lowered
        otherNote.notes = ["in q2.balance, which adds up only with the value the sums chose for q2.saves"]
        #expect(BrokenRuleFlags.inkAlone(ink, weighed: otherNote, line: 70) == nil)
    }

    /// A committed hand-filled sheet (phone photo, held-out writers) whose goals were written 1 and
    /// whose q3 and q4 goals the digits read 7 (q1's they read 01, 53% sure, which the sums confirm):
    /// the sums choose 1 for q4 (the digits barely preferred 7), and q3's 7, read 84% sure, breaks its
    /// row and the goals column. The scan fills in q3's 1 from the suggestion, flagged, and keeps the
    /// rules the ink broke. The sure numbers of q3's row and the goals total are unflagged: the
    /// filled-in 1 mends their rules. q4's row holds with the 1 the sums chose, the digits' second choice,
    /// so q4's saves are unflagged too (`SumCorroboration.secondChoiceExplains`); the goals column does not
    /// hold with that 1 alone, so the numbers of the column it was chosen for (q1's and q2's goals) stay
    /// flagged.
    @Test func aHandFilledSheetGetsItsSuggestionFilledIn() throws {
        var options = ScanOptions(writing: .hand, today: RuleEvaluator.parseDate("2026-11-23")!)
        options.minConfidence = Self.line
        let scanner = try SheetScanner(library: try Fixtures.library(), options: options)
        let path = Fixtures.testImages.appendingPathComponent("lacrosse-goalie/handwritten-phone/sheet-008.jpg").path
        let result = scanner.scan(path)
        #expect(result.status == .needsReview)
        #expect(Set(result.ruleFailures.map(\.rule)) == ["q3.balance", "goals.periods-sum"], "the rules the ink broke")
        for id in ["q3.goals", "q4.goals"] {
            let reading = try #require(result.reading(id))
            #expect(reading.value == .integer(1) && reading.text.hasSuffix("7") && reading.flagged, "\(id): \(reading.value) \(reading.text)")
        }
        let filledIn = try #require(result.reading("q3.goals"))
        #expect(filledIn.filledInFromSuggestion && filledIn.confidence < 70, "\(filledIn.notes)")
        let chosen = try #require(result.reading("q4.goals"))
        #expect(SumCorroboration.readFromSums(chosen) && !chosen.filledInFromSuggestion, "q4.goals: \(chosen.notes)")
        for id in ["q3.shots", "q3.saves", "total.goals", "q1.shots", "q1.saves", "q4.shots", "q4.saves", "q2.clears"] {
            let reading = try #require(result.reading(id))
            #expect(!reading.flagged && reading.confidence >= 70, "\(id): \(reading.notes)")
        }
        #expect(try #require(result.reading("q4.saves")).notes.contains { $0.contains("its digits' second choice, mends") })
        for id in ["q1.goals", "q2.goals"] {
            #expect(try #require(result.reading(id)).flagged, "\(id) is in a sum only the sums' choice mends")
        }
        // The values stored break no rule.
        let values = Dictionary(uniqueKeysWithValues: result.fields.map { ($0.id, $0.reading.value) })
        #expect(RuleCheck(template: Self.template, values: values, today: options.today).failures().isEmpty)
    }

    /// The committed box score sheet-001: its shooting group (free throws, 3-pointers, points) breaks with
    /// sure misreads no alternative mends, while its rebounds, steals and turnovers columns each mend by the
    /// network's runner-up. The scan fills those in (all three as written on the paper), flagged, names the
    /// shooting rules as beyond repair. On a sheet holding a sure misread nothing listed, a runner-up
    /// balancing a one-sum column explains nothing; the column as read still rules out what it can.
    @Test func aBoxScoreWhoseShootingIsBeyondRepairStillGetsItsOtherColumnsFilledIn() throws {
        let options = ScanOptions(writing: .hand, today: RuleEvaluator.parseDate("2026-11-23")!)
        let scanner = try SheetScanner(library: try Fixtures.library(), options: options)
        let path = Fixtures.testImages.appendingPathComponent("basketball-box/handwritten-phone/sheet-001.jpg").path
        let result = scanner.scan(path)
        let note = try #require(result.suggestionNote)
        #expect(note.contains("satisfies p05.ft-made-within, p05.points") && note.contains("may be inconsistent there"), "\(note)")
        for (id, written) in [("p06.reb", 8), ("p01.stl", 1), ("team.to", 14)] {
            let reading = try #require(result.reading(id))
            #expect(reading.value == .integer(written) && reading.filledInFromSuggestion && reading.flagged, "\(id): \(reading.notes)")
        }
        // Rebounds, 5 short as read: p01's 3 could be the 8 the column wants, and the reader doubted the team's 43.
        for id in ["p01.reb", "team.reb"] {
            #expect(try #require(result.reading(id)).flagged, "\(id) could have broken a column only a runner-up mended")
        }
        // Steals, 6 over as read: only p01's 7 (as 1) could be the misread; p02's 0 and the team's 6 not.
        for id in ["p02.stl", "team.stl"] {
            let reading = try #require(result.reading(id))
            #expect(!reading.flagged && reading.notes.contains { $0.contains("which a misread of p01.stl could explain") }, "\(id): \(reading.notes)")
        }
    }
}
