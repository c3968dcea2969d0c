import Foundation
import Testing
@testable import SheetModel

@Suite struct SheetPosteriorTests {
    static let today = RuleEvaluator.parseDate("2026-11-22")!

    /// The consistent lacrosse game, every field read with certainty, then `misreads` applied: field →
    /// (value read, alternatives best first).
    static func readings(_ misreads: [String: (FieldValue, [(FieldValue, Double)])]) -> [(id: String, reading: FieldReading)] {
        LacrosseRuleTests.template.fields.map { field in
            let truth = LacrosseRuleTests.game[field.id] ?? .empty
            guard let (read, alternatives) = misreads[field.id] else {
                return (field.id, FieldReading(value: truth, text: "", confidence: 99))
            }
            var reading = FieldReading(value: read, text: "", confidence: alternatives[0].1 * 100)
            reading.alternatives = alternatives.map { Alternative(value: $0.0, probability: $0.1) }
            return (field.id, reading)
        }
    }

    static let box = try! SheetTemplate.decode(try! Data(contentsOf: repositoryRoot.appendingPathComponent("Templates/basketball-box.json")))

    static func model(_ template: SheetTemplate = LacrosseRuleTests.template) -> SheetPosterior {
        SheetPosterior(search: SuggestionSearch(template: template, today: today))
    }

    static func weigh(_ readings: [(id: String, reading: FieldReading)]) -> [String: FieldReading] {
        Dictionary(uniqueKeysWithValues: model().weigh(readings).readings.map { ($0.id, $0.reading) })
    }

    static func search(_ readings: [(id: String, reading: FieldReading)]) -> SuggestionOutcome {
        model().weigh(readings).outcome
    }

    @Test func consistentReadingsNeedNoSuggestion() {
        #expect(Self.search(Self.readings([:])) == .consistent)
    }

    @Test func findsTheMisreadDigitFromItsAlternatives() throws {
        // The paper says q2.shots 10 (7 saves + 3 goals); the reader preferred 16.
        let outcome = Self.search(Self.readings(["q2.shots": (.integer(16), [(.integer(16), 0.55), (.integer(10), 0.40), (.integer(18), 0.05)])]))
        guard case .suggestion(let s) = outcome else { Issue.record("expected a suggestion, got \(outcome)"); return }
        #expect(s.changes.map(\.field) == ["q2.shots"] && s.changes.first?.to == .integer(10))
        #expect(abs((s.changes.first?.probability ?? 0) - 0.40) < 0.001 && abs(s.relativeToRead - 0.40 / 0.55) < 1e-9)
    }

    @Test func picksTheFieldWhoseChangeExplainsEveryRule() throws {
        // Two doubtful fields; only changing q3.saves (4, read as 9) fixes both q3's balance and the saves total.
        let outcome = Self.search(Self.readings([
            "q3.saves": (.integer(9), [(.integer(9), 0.6), (.integer(4), 0.35)]),
            "q3.goals": (.integer(0), [(.integer(0), 0.7), (.integer(6), 0.3)]),
        ]))
        guard case .suggestion(let s) = outcome else { Issue.record("expected a suggestion, got \(outcome)"); return }
        #expect(s.changes.map(\.field) == ["q3.saves"])
        #expect(s.changes.first?.to == .integer(4))
    }

    @Test func aCheckboxRuleNoAlternativeCanMendDoesNotBlockTheSums() throws {
        // Both context boxes read unchecked (a rule only a person can settle) and q2.shots misread.
        var readings = Self.readings(["q2.shots": (.integer(16), [(.integer(16), 0.55), (.integer(10), 0.40)])])
        for i in readings.indices where readings[i].id.hasPrefix("context.") {
            readings[i].reading = FieldReading(value: .boolean(false), text: "", confidence: 99)
        }
        let outcome = Self.search(readings)
        guard case .suggestion(let s) = outcome else { Issue.record("expected a suggestion, got \(outcome)"); return }
        #expect(s.changes.map(\.field) == ["q2.shots"])
        #expect(s.changes.first?.to == .integer(10))
    }

    /// The stat keeper's own slip: shots written 11 where saves 7 + goals 3 = 10, every number read at 90
    /// with nothing else offered, but for `doubtful`, read as written with these alternatives.
    static func slip(doubtful id: String, _ alternatives: [(Int, Double)]) -> [(id: String, reading: FieldReading)] {
        var values = LacrosseRuleTests.game
        values["q2.shots"] = .integer(11)
        return LacrosseRuleTests.template.fields.map { field in
            var r = FieldReading(value: values[field.id] ?? .empty, text: "", confidence: 90)
            if field.id == id { r.alternatives = alternatives.map { Alternative(value: .integer($0.0), probability: $0.1) } }
            return (field.id, r)
        }
    }

    @Test func aNumberTwoSumsDisputeIsOfferedWhatTheyWantWhateverItsAlternatives() {
        // Shots written 11 where 7 + 3 = 10, every number read at 0.9: a misread of a number two sums read,
        // to a value one digit away, is likelier than a slip of the pen breaking both. Offered, as a long shot.
        for doubtful in ["q2.saves", "q2.clears"] {
            guard case .suggestion(let s) = Self.search(Self.slip(doubtful: doubtful, [(7, 0.8), (6, 0.2)])) else {
                Issue.record("expected a suggestion"); continue
            }
            #expect(s.changes.map(\.field) == ["q2.shots"] && s.changes.first?.to == .integer(10) && s.relativeToRead < 0.05)
        }
    }

    @Test func aOneSumSlipAmongSureNumbersIsLeftAsWritten() throws {
        // The clears column written with q2.clears 1 too many, every number read sure: a slip of the pen
        // breaking one sum is likelier than a sure misread, so nothing is changed and nothing suggested.
        let clears = try #require(LacrosseRuleTests.game["q2.clears"]?.integerValue)
        var values = LacrosseRuleTests.game
        values["q2.clears"] = .integer(clears + 1)
        let readings = LacrosseRuleTests.template.fields.map { ($0.id, FieldReading(value: values[$0.id] ?? .empty, text: "", confidence: 99.9)) }
        let weighed = Self.model().weigh(readings)
        #expect((weighed.outcome.suggestion?.relativeToRead ?? 0) < 1e-3, "at most a long shot is offered")
        #expect(weighed.readings.allSatisfy { $0.reading.value == values[$0.id] ?? .empty && $0.reading.inkValue == nil })
    }

    @Test func repairsADigitTheAlternativesMissed() throws {
        // The paper says q2.shots 10; the leading 1 was lost and none of the alternatives is 10. Both rules
        // q2.shots is in (q2's balance, the shots total) demand 10.
        let outcome = Self.search(Self.readings(["q2.shots": (.integer(0), [(.integer(0), 0.7), (.integer(8), 0.2)])]))
        guard case .suggestion(let s) = outcome else { Issue.record("expected a suggestion, got \(outcome)"); return }
        #expect(s.changes.map(\.field) == ["q2.shots"])
        #expect(s.changes.first?.to == .integer(10))
        #expect(s.changes.first?.demandedByRules == true)
        #expect(s.relativeToRead < 0.1, "a value nobody offered is a long shot beside the reading: \(s.relativeToRead)")
    }

    @Test func anEmptyBoxTheReaderCouldNotMakeOutIsRepaired() throws {
        // Ink in q3.saves the reader could not make out (read empty, confidence 0, no alternatives): q3's
        // balance and the saves total both demand what the paper says, 4.
        var readings = Self.readings([:])
        let i = try #require(readings.firstIndex { $0.id == "q3.saves" })
        readings[i].reading = FieldReading(value: .empty, text: "", confidence: 0)
        let outcome = Self.search(readings)
        guard case .suggestion(let s) = outcome else { Issue.record("expected a suggestion, got \(outcome)"); return }
        #expect(s.changes.map(\.field) == ["q3.saves"])
        #expect(s.changes.first?.to == LacrosseRuleTests.game["q3.saves"])
    }

    @Test func aSureReadingTwoSumsDisputeIsShownAsTheyWantItFlaggedWithTheInkKept() throws {
        // The network is sure it sees 11 where both q2.shots's sums want 10. A slip on paper breaks each sum
        // with probability 1 in 200; a misread of a sure number to a value one digit away is likelier than
        // both together, so 10 is shown, with the ink's 11 kept and the field flagged for a person.
        let readings = Self.readings(["q2.shots": (.integer(11), [(.integer(11), 0.995), (.integer(17), 0.004)])])
        let weighed = try #require(Self.weigh(readings)["q2.shots"])
        #expect(weighed.value == .integer(10) && weighed.inkValue == .integer(11) && weighed.confidence < 99)
        guard case .suggestion(let s) = Self.search(readings) else { Issue.record("expected a suggestion"); return }
        #expect(s.changes.first?.demandedByRules == true && s.relativeToRead < 0.01)
    }

    @Test func aRepairNeedsAFieldEveryFailingRuleReads() {
        // Two fields misread in different rows and columns of the shots grid: no single field mends all four
        // rules, and the alternatives do not hold the truth either, so nothing is suggested.
        let outcome = Self.search(Self.readings([
            "q2.shots": (.integer(0), [(.integer(0), 0.7), (.integer(8), 0.2)]),
            "q3.saves": (.integer(9), [(.integer(9), 0.7), (.integer(5), 0.2)]),
        ]))
        #expect(outcome == .inconsistent)
    }

    @Test func rulesThatShareNoFieldAreRepairedEachByItsOwn() throws {
        // A shot misread in the grid and a clear in the clears column, neither's truth among its
        // alternatives: the grid's two rules demand 10 of q2.shots, the clears column 11 of q4.clears.
        let outcome = Self.search(Self.readings([
            "q2.shots": (.integer(0), [(.integer(0), 0.7), (.integer(8), 0.2)]),
            "q4.clears": (.integer(3), [(.integer(3), 0.7), (.integer(5), 0.2)]),
        ]))
        // Each group weighed on its own: the grid is mended by the value both its sums demand; in the clears
        // column, one sum, a value the reader did not list is less likely than the keeper's slip, so it is
        // left to a person and named.
        guard case .partial(let s, let beyondRepair) = outcome else { Issue.record("expected a partial repair, got \(outcome)"); return }
        #expect(s.changes.map(\.field) == ["q2.shots"] && s.changes.first?.to == .integer(10) && s.changes.first?.demandedByRules == true)
        #expect(beyondRepair == ["clears.periods-sum"])
    }

    @Test func aStrayMarkInAnUnplayedOvertimeIsSuggestedEmpty() throws {
        // No overtime was played (its row is empty); a mark in ot.saves read as 5 breaks the sums, which
        // want 0 there. The suggestion is an empty box, not a logged overtime with 0 saves.
        let outcome = Self.search(Self.readings(["ot.saves": (.integer(5), [(.integer(5), 0.5), (.integer(2), 0.3)])]))
        guard case .suggestion(let s) = outcome else { Issue.record("expected a suggestion, got \(outcome)"); return }
        #expect(s.changes.map(\.field) == ["ot.saves"])
        #expect(s.changes.first?.to == .empty)
        // The same when the network itself offered the 0 (an alternative, not a value the sums demand).
        let offered = Self.search(Self.readings(["ot.saves": (.integer(5), [(.integer(5), 0.5), (.integer(0), 0.3)])]))
        guard case .suggestion(let u) = offered else { Issue.record("expected a suggestion, got \(offered)"); return }
        #expect(u.changes.map(\.field) == ["ot.saves"])
        #expect(u.changes.first?.to == .empty)
        // Two stray marks in the empty overtime row, each offered 0: neither makes the other a played period.
        let two = Self.search(Self.readings([
            "ot.saves": (.integer(5), [(.integer(5), 0.5), (.integer(0), 0.3)]),
            "ot.shots": (.integer(4), [(.integer(4), 0.5), (.integer(0), 0.3)]),
        ]))
        guard case .suggestion(let w) = two else { Issue.record("expected a suggestion, got \(two)"); return }
        #expect(Set(w.changes.map(\.field)) == ["ot.saves", "ot.shots"])
        #expect(w.changes.allSatisfy { $0.to == .empty }, "\(w.changes)")
        // With overtime played (the rest of its row filled), the same mark is suggested as 0, offered or not.
        for alternatives in [[(FieldValue.integer(5), 0.5), (.integer(2), 0.3)], [(.integer(5), 0.5), (.integer(0), 0.3)]] {
            var played = Self.readings(["ot.saves": (.integer(5), alternatives)])
            for (id, value) in [("ot.shots", 1), ("ot.goals", 1), ("total.shots", 46), ("total.goals", 9)] {
                let i = try #require(played.firstIndex { $0.id == id })
                played[i].reading = FieldReading(value: .integer(value), text: "", confidence: 99)
            }
            guard case .suggestion(let t) = Self.search(played) else { Issue.record("expected a suggestion"); return }
            #expect(t.changes.first?.to == .integer(0))
        }
    }

    /// A field the combination leaves as read is never among its changes, even a 0 in an empty overtime
    /// row that would be suggested empty if it were changed.
    @Test func aFieldLeftAsReadIsNotChanged() throws {
        let outcome = Self.search(Self.readings([
            "ot.goals": (.integer(0), [(.integer(0), 0.9), (.integer(6), 0.05)]),
            "q2.shots": (.integer(16), [(.integer(16), 0.55), (.integer(10), 0.40)]),
        ]))
        guard case .suggestion(let s) = outcome else { Issue.record("expected a suggestion, got \(outcome)"); return }
        #expect(s.changes.map(\.field) == ["q2.shots"])
    }


    // MARK: - The posterior

    @Test func aConsistentSheetRaisesADoubtfulNumberItsSumsConfirm() throws {
        // q2.shots read 10 at 0.6 beside 16 at 0.4: with 16, both its sums break; the rules make 10 near certain.
        let weighed = Self.weigh(Self.readings(["q2.shots": (.integer(10), [(.integer(10), 0.6), (.integer(16), 0.4)])]))
        let shots = try #require(weighed["q2.shots"])
        #expect(shots.value == .integer(10) && shots.confidence > 95 && shots.inkConfidence == 60 && shots.inkValue == nil)
        // The other numbers keep their value, sure.
        #expect(weighed.values.filter { $0.value.integerValue != nil }.allSatisfy { $0.confidence > 90 })
    }

    @Test func theRulesChoiceIsShownWithTheInksValueKept() throws {
        // The reader preferred 16 (0.55) to 10 (0.40); both of q2.shots's sums hold only with 10.
        let weighed = Self.weigh(Self.readings(["q2.shots": (.integer(16), [(.integer(16), 0.55), (.integer(10), 0.40), (.integer(18), 0.05)])]))
        let shots = try #require(weighed["q2.shots"])
        #expect(shots.value == .integer(10) && shots.inkValue == .integer(16) && shots.inkFirstChoice == .integer(16))
        #expect(shots.confidence > 95 && abs(shots.confidenceAlone - 55) < 1e-9)
        #expect(shots.flagCause(line: 70) == nil, "flags are the check stage's; the model only weighs")
    }

    @Test func oneSumsBreakSpreadsTheDoubtOverItsNumbersByTheirInk() throws {
        // The clears column is one sum: q2.clears read 6 at 0.55 beside 0 at 0.40 breaks it, and 0 mends it.
        // The doubt goes to the number the ink doubted, not to the sure ones beside it.
        let truth = LacrosseRuleTests.game["q2.clears"]!
        let weighed = Self.weigh(Self.readings(["q2.clears": (.integer(6), [(.integer(6), 0.55), (truth, 0.40)])]))
        #expect(weighed["q2.clears"]?.value == truth)
        #expect(["q1.clears", "q3.clears", "q4.clears", "total.clears"].allSatisfy { (weighed[$0]?.confidence ?? 0) > 95 })
    }

    /// A wide mark's doubt is the chance the mark is two digits ("13" read 3), not that it is another digit. The
    /// clears column is 5 short: q1.clears, a wide 3, is no likelier an 8 than any sure digit is; q3.clears, a 5
    /// read 0 at 0.99 with 5 beside it at 0.005, is as likely misread as the sheet is to hold a slip, and is
    /// doubted (sets 7002 and 7301: the wide mark was made a 7 and the misread passed unflagged).
    @Test func aWideMarksDoubtGoesToTwoDigitsNotToAnotherDigit() throws {
        var readings = Self.readings(["q3.clears": (.integer(0), [(.integer(0), 0.99), (.integer(5), 0.005)])])
        let i = try #require(readings.firstIndex { $0.id == "q1.clears" })
        var wide = FieldReading(value: .integer(3), text: "3", confidence: 60, doubts: [.wideMark])
        wide.alternatives = [Alternative(value: .integer(3), probability: 0.99), Alternative(value: .integer(2), probability: 0.002)]
        readings[i].reading = wide
        let weighed = Self.weigh(readings)
        #expect(weighed["q1.clears"]?.value == .integer(3), "\(String(describing: weighed["q1.clears"]))")
        #expect((weighed["q3.clears"]?.confidence ?? 100) < 70, "\(String(describing: weighed["q3.clears"]))")
        #expect(SheetPosterior.oneDigitLonger(.integer(3)).count == 18 && SheetPosterior.oneDigitLonger(.integer(3)).contains(.integer(13)))
        #expect(!SheetPosterior.oneDigitLonger(.integer(3)).contains(.integer(8)) && SheetPosterior.oneDigitLonger(.integer(0)).contains(.integer(10)))
    }

    @Test func confidenceIsTheMarginalSoItNeverExceedsOne() {
        var generator = SplitMix64(seed: 39)
        for _ in 0..<20 {
            let misreads = Dictionary(uniqueKeysWithValues: ["q1.shots", "q2.saves", "total.goals", "q3.clears"].map { id -> (String, (FieldValue, [(FieldValue, Double)])) in
                let p = Double.random(in: 0.3...0.99, using: &generator)
                let v = Int.random(in: 0...20, using: &generator)
                return (id, (.integer(v), [(.integer(v), p), (.integer(v + 1), (1 - p) / 2)]))
            })
            for reading in Self.weigh(Self.readings(misreads)).values {
                #expect(reading.confidence >= 0 && reading.confidence <= 100)
            }
        }
    }

    @Test func oneMisreadChangesOneDigitLosesOneOrAddsOne() {
        func apart(_ written: FieldValue, _ read: FieldValue) -> Bool { SuggestionSearch.oneMisreadApart(written: written, read: read) }
        #expect(apart(.integer(11), .integer(17)) && apart(.integer(1), .integer(7)) && apart(.integer(30), .integer(37)))
        #expect(apart(.integer(25), .integer(5)) && apart(.integer(25), .integer(2)))   // a digit lost
        #expect(apart(.integer(3), .integer(33)) && apart(.integer(0), .integer(10)))   // a stray mark read as one
        #expect(apart(.empty, .integer(4)) && apart(.integer(4), .empty))               // an empty box is no digits
        #expect(!apart(.integer(13), .integer(7)) && !apart(.integer(19), .integer(25)) && !apart(.integer(5), .integer(125)))
        #expect(!apart(.integer(7), .integer(7)) && !apart(.integer(-1), .integer(1)) && !apart(.string("ab"), .integer(1)))
    }

    /// `wantedValue` solves a sum for one of its numbers in three evaluations; it must find what trying
    /// every value of the number's range finds (`demandedValue`), including none (an odd gap to a
    /// player's two-pointers, counted twice in his points; a value outside the range) and an empty box
    /// for a 0 in an overtime nobody played. Random readings, seeded, on the lacrosse sheet and a box score.
    @Test func solvingASumForOneNumberFindsWhatTryingEveryValueFinds() {
        var generator = SplitMix64(seed: 2026)
        // A box score's sums are thirteen numbers each: trying every value of each is slow, so fewer sheets.
        let templates = [(LacrosseRuleTests.template, 30), (Self.box, 1)]
        var solved = 0, none = 0
        for (template, sheets) in templates {
            let search = SuggestionSearch(template: template, today: Self.today)
            let counts = template.fields.filter { $0.kind == .count }
            for _ in 0..<sheets {
                var values: [String: FieldValue] = [:]
                for field in counts {
                    let roll = Int.random(in: 0..<10, using: &generator)
                    values[field.id] = roll == 0 ? .empty : .integer(Int.random(in: 0...(roll < 5 ? 9 : 60), using: &generator))
                }
                // A sum that holds as read wants nothing changed (`demandedValue` would offer 0 for a blank).
                for rule in search.rules where rule.isSum && !search.holds(values, [rule]) {
                    for id in rule.fields.sorted() where template.field(id)?.kind == .count {
                        let fast = search.wantedValue(id, in: rule, values: values, within: template.field(id)?.allowedRange ?? 0...99)
                        let slow = search.demandedValue(id, besides: [values[id] ?? .empty], values: values, rules: [rule])
                        #expect(fast == slow, "\(template.id) \(rule.name) \(id)")
                        if fast == nil { none += 1 } else { solved += 1 }
                    }
                }
            }
        }
        // Both outcomes were tried often.
        #expect(solved > 100 && none > 100, "\(solved) solved, \(none) none")
    }

}

/// A seeded generator (SplitMix64), so a random test reads the same values every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
