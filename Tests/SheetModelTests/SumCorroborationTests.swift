import Foundation
import Testing
@testable import SheetModel

/// The lacrosse game of `LacrosseRuleTests.game` (q2: 7 saves + 3 goals = 10 shots; clears 3, 0, 5, 11 =
/// 19), every field read 99% sure except the misreads each test sets up.
@Suite struct SumCorroborationTests {
    static func corroborate(_ misreads: [String: (FieldValue, [(FieldValue, Double)])],
                            confidence: [String: Double] = [:]) -> [String: FieldReading] {
        var readings = SuggestionTests.readings(misreads)
        for i in readings.indices { if let c = confidence[readings[i].id] { readings[i].reading.confidence = c } }
        return Dictionary(uniqueKeysWithValues: corroborate(readings).map { ($0.id, $0.reading) })
    }

    /// The readings weighed against the lacrosse template's sums, in the order given.
    static func corroborate(_ readings: [(id: String, reading: FieldReading)]) -> [(id: String, reading: FieldReading)] {
        let search = SuggestionSearch(template: LacrosseRuleTests.template, today: SuggestionTests.today)
        let out = SumCorroboration(search: search).corroborate(readings)
        #expect(out.map(\.id) == readings.map(\.id))
        return out
    }

    @Test func aMisreadTheSureRowContradictsIsReadAsTheRowDemands() throws {
        // 10 written, read 70 (0.60) with 10 second (0.38); 7 saves + 3 goals read sure.
        let r = Self.corroborate(["q2.shots": (.integer(70), [(.integer(70), 0.60), (.integer(10), 0.38), (.integer(16), 0.02)])])
        let shots = try #require(r["q2.shots"])
        #expect(shots.value == .integer(10))
        // 0.38 against the story that the writer slipped: 0.60 × 1% of it.
        #expect(abs(shots.confidence - 100 * 0.38 / (0.38 + 0.60 * 0.01)) < 1e-6)
        #expect(shots.notes.contains { $0.contains("the digits alone read 70") })
        #expect(SumCorroboration.readFromSums(shots))
        #expect(shots.flagged, "a number the network's first choice disagreed with goes past a person")
        #expect(shots.alternatives.first?.value == .integer(70), "the network's alternatives are kept as they were")
    }

    /// A count the range chose over the network's first choice (an 11 whose flagged 1s read 71, out of a
    /// quarter's 0–49), held at 40 by the reader, is confirmed by a sum that pins it, as any doubtful
    /// reading is: one whose other numbers were read sure (its row or its column; a clears column, six
    /// numbers). With every sum it is in holding a doubtful number too, or another doubt of the reader's,
    /// it stays where it was.
    @Test func aCountTheRangeChoseIsConfirmedByASumThatPinsIt() throws {
        func rangeChose(_ id: String, _ value: Int, firstChoice: Int, others: [String: (FieldValue, [(FieldValue, Double)])] = [:],
                        note extra: String? = nil) throws -> FieldReading {
            var readings = SuggestionTests.readings(others.merging([id: (.integer(value), [(.integer(value), 0.9), (.integer(16), 0.02)])]) { a, _ in a })
            let i = try #require(readings.firstIndex { $0.id == id })
            readings[i].reading.confidence = 40
            readings[i].reading.notes = [SumCorroboration.rangeChoseNote(firstChoice: .integer(firstChoice), probability: 0.95, range: 0...49)]
                + (extra.map { [$0] } ?? [])
            return try #require(Self.corroborate(readings).first { $0.id == id }?.reading)
        }
        let row = try rangeChose("q2.shots", 10, firstChoice: 70)
        #expect(row.notes.first == "70, the digits' first choice (confidence 95), is outside 0–49")
        #expect(row.value == .integer(10) && row.confidence >= 70, "its row and its column both hold: \(row.confidence)")
        let clears = try rangeChose("q4.clears", 11, firstChoice: 71)
        #expect(clears.confidence >= 70, "the clears column pins it: \(clears.confidence)")
        let doubtfulSaves = (FieldValue.integer(7), [(FieldValue.integer(7), 0.65), (FieldValue.integer(1), 0.30)])
        let columnOnly = try rangeChose("q2.shots", 10, firstChoice: 70, others: ["q2.saves": doubtfulSaves])
        #expect(columnOnly.confidence >= 70, "its row has another doubtful number, its column pins it: \(columnOnly.confidence)")
        let unpinned = try rangeChose("q2.shots", 10, firstChoice: 70, others: [
            "q2.saves": doubtfulSaves, "q1.shots": (.integer(11), [(.integer(11), 0.6), (.integer(17), 0.35)])])
        #expect(unpinned.confidence < 70, "its row and its column each have another doubtful number: \(unpinned.confidence)")
        let struck = try rangeChose("q2.shots", 10, firstChoice: 70, note: "a crossed-out or unreadable mark among the digits")
        #expect(struck.confidence == 40, "the reader doubted what it saw")
        // 15 chosen where the row (7 + 3) and the column say 10: the sums break, nothing is confirmed.
        let broken = try rangeChose("q2.shots", 15, firstChoice: 75)
        #expect(broken.confidence <= 40, "\(broken.confidence)")
        // A 0 in the overtime nobody played adds up as an empty box does: it is not confirmed.
        let overtime = try rangeChose("ot.shots", 0, firstChoice: 60)
        #expect(overtime.confidence <= 40, "\(overtime.confidence)")
    }

    @Test func aValueNoRulePinsIsNotReadFromTheSums() throws {
        // The same 70 (0.60) / 10 (0.38), but q2.saves (7, 0.65) and total.shots (45, 0.65) were doubtful
        // too: every rule reading q2.shots has another doubtful number, so none pins it.
        let r = Self.corroborate([
            "q2.shots": (.integer(70), [(.integer(70), 0.60), (.integer(10), 0.38), (.integer(16), 0.02)]),
            "q2.saves": (.integer(7), [(.integer(7), 0.65), (.integer(1), 0.30), (.integer(2), 0.05)]),
            "total.shots": (.integer(45), [(.integer(45), 0.65), (.integer(40), 0.30), (.integer(49), 0.05)]),
        ])
        #expect(r["q2.shots"]?.value == .integer(70))
        #expect((r["q2.shots"]?.confidence ?? 100) < 70)
    }

    @Test func aSureReadingTwoSumsBreakWithIsReadAsTheyDemand() throws {
        // Read 70 at 0.75, 10 at 0.24: the q2 row (7 + 3) and the shots column both say 10, and 0.24 is far
        // likelier than a 1% slip of 0.75. The network was sure, so a person confirms the change.
        let r = Self.corroborate(["q2.shots": (.integer(70), [(.integer(70), 0.75), (.integer(10), 0.24), (.integer(16), 0.01)])])
        let shots = try #require(r["q2.shots"])
        #expect(shots.value == .integer(10))
        #expect(abs(shots.confidence - 100 * 0.24 / (0.24 + 0.75 * 0.01)) < 1e-6)
        #expect(SumCorroboration.readFromSums(shots))
        #expect(shots.flagged)
    }

    @Test func aSureReadingOnlyOneSumBreaksWithIsLeftAsRead() throws {
        // q1.clears read 8 at 0.75, 3 at 0.24: the clears column alone says 3. One sum is not enough to
        // overrule a sure reading (another clears could be the misread); the broken column flags it.
        let r = Self.corroborate(["q1.clears": (.integer(8), [(.integer(8), 0.75), (.integer(3), 0.24), (.integer(6), 0.01)])])
        let clears = try #require(r["q1.clears"])
        #expect(clears.value == .integer(8))
        #expect(!SumCorroboration.readFromSums(clears))
        // The same doubtful (0.60 / 0.38) is read from the column, which pins it.
        let doubtful = Self.corroborate(["q1.clears": (.integer(8), [(.integer(8), 0.60), (.integer(3), 0.38), (.integer(6), 0.02)])])
        #expect(doubtful["q1.clears"]?.value == .integer(3))
    }

    @Test func aSureReadingIsNotReplacedWhenItsSecondSumHasAnotherDoubtfulNumber() throws {
        // The sure 70 (0.75) of the test above, but total.shots was doubtful (45 at 0.65): the shots column
        // is no independent sum, so only the row speaks for 10, and a sure reading needs two.
        let r = Self.corroborate([
            "q2.shots": (.integer(70), [(.integer(70), 0.75), (.integer(10), 0.24), (.integer(16), 0.01)]),
            "total.shots": (.integer(45), [(.integer(45), 0.65), (.integer(48), 0.30)]),
        ])
        #expect(r["q2.shots"]?.value == .integer(70))
    }

    @Test func aNumberAValueFromOneSumWasMadeToBalanceStaysFlagged() throws {
        // 0 clears written in q2, read 5 at 0.99; the total 19 read at 0.60, then 14 at 0.25 and 24 at 0.15.
        // The clears column alone takes the total to 24 (wrong, and flagged), the network's third choice.
        // It then adds up, so it flags nothing itself: its other numbers, the misread among them, must stay
        // flagged.
        let r = Self.corroborate([
            "q2.clears": (.integer(5), [(.integer(5), 0.99), (.integer(0), 0.005)]),
            "total.clears": (.integer(19), [(.integer(19), 0.60), (.integer(14), 0.25), (.integer(24), 0.15)]),
        ])
        let total = try #require(r["total.clears"])
        #expect(total.value == .integer(24) && total.flagged)
        for row in ["q1", "q2", "q3", "q4", "ot"] {
            let clears = try #require(r["\(row).clears"])
            #expect(clears.flagged, "\(row).clears")
            #expect(clears.notes.contains("in clears.periods-sum, which adds up only with the value the sums chose for total.clears"))
            // Read sure, but in doubt: its confidence goes under the review line with the flag.
            #expect(clears.confidence < 70, "\(row).clears \(clears.confidence)")
        }
    }

    @Test func aValueFromOneSumThatWasTheNetworksSecondChoiceExplainsTheSum() throws {
        // The clears read sure add up to 24; the total read 19 at 0.60 and 24 at 0.30, so the column
        // chooses 24. For one of the sure numbers to be the misread instead, the network's runner-up would
        // have to be worth it exactly: they keep their confidence, and say why their sum once broke.
        let r = Self.corroborate([
            "q2.clears": (.integer(5), [(.integer(5), 0.99), (.integer(0), 0.005)]),
            "total.clears": (.integer(19), [(.integer(19), 0.60), (.integer(24), 0.30), (.integer(14), 0.05)]),
        ])
        let total = try #require(r["total.clears"])
        #expect(total.value == .integer(24) && total.flagged, "the value the sums chose is still a person's to confirm")
        for row in ["q1", "q2", "q3", "q4", "ot"] {
            let clears = try #require(r["\(row).clears"])
            #expect(!clears.flagged, "\(row).clears")
            #expect(clears.confidence >= 70, "\(row).clears \(clears.confidence)")
            #expect(clears.notes.contains("in clears.periods-sum, which the value the sums chose for total.clears, its digits' second choice, mends"))
        }
        // A runner-up the network gave under 0.1 explains nothing, though the column still chooses it.
        let thin = Self.corroborate([
            "q2.clears": (.integer(5), [(.integer(5), 0.99), (.integer(0), 0.005)]),
            "total.clears": (.integer(19), [(.integer(19), 0.50), (.integer(24), 0.09), (.integer(14), 0.08), (.integer(18), 0.08),
                                            (.integer(13), 0.08), (.integer(17), 0.08)]),
        ], confidence: ["total.clears": 50])
        #expect(thin["total.clears"]?.value == .integer(24))
        #expect(thin["q1.clears"]?.flagged == true)
    }

    @Test func aNumberAnotherSureSumConfirmsIsNotFlaggedForAValueFromOneSum() throws {
        // q2.shots 70 (0.50) / 76 (0.26) / 10 (0.22) read as 10 from its row; total.shots was doubtful, so
        // only the row vouches for 10, and the network's third choice explains nothing. The row's saves and
        // goals are each confirmed by their own sure column; the other quarters' shots by their rows; the
        // doubtful total by nothing, so it alone stays flagged.
        let r = Self.corroborate([
            "q2.shots": (.integer(70), [(.integer(70), 0.50), (.integer(76), 0.26), (.integer(10), 0.22)]),
            "total.shots": (.integer(45), [(.integer(45), 0.65), (.integer(48), 0.30)]),
        ])
        #expect(r["q2.shots"]?.value == .integer(10))
        for id in ["q2.saves", "q2.goals", "q1.shots", "q3.shots", "q4.shots"] {
            #expect(r[id]?.flagged == false, "\(id)")
        }
        #expect(r["total.shots"]?.flagged == true)
    }

    @Test func aSlipIsLikelierThanAValueTheNetworkAllButRuledOut() throws {
        // The same misread with 10 at 0.02: a stat keeper's slip (1%) of a 0.97 reading weighs about as
        // much, so the reading stays 70 and the broken row will flag it.
        let r = Self.corroborate(["q2.shots": (.integer(70), [(.integer(70), 0.97), (.integer(10), 0.02), (.integer(16), 0.01)])])
        let shots = try #require(r["q2.shots"])
        #expect(shots.value == .integer(70))
        #expect(shots.confidence == 97)
    }

    @Test func aDoubtfulCountTheSureRowAgreesWithIsConfirmed() throws {
        // q3.goals 0 read at 0.55 (6 at 0.40); 4 saves + 0 goals = 4 shots, all else sure. 6 would break it.
        let r = Self.corroborate(["q3.goals": (.integer(0), [(.integer(0), 0.55), (.integer(6), 0.40)])])
        let goals = try #require(r["q3.goals"])
        #expect(goals.value == .integer(0))
        // The row leaves no other story; the 5% the network listed no value for stays doubt.
        #expect(abs(goals.confidence - 95) < 1e-6)
        #expect(goals.notes.contains { $0.contains("with the sums, 55 alone") })
    }

    @Test func twoDoubtfulReadingsThatBalanceEachOtherStayDoubtful() throws {
        // Clears 3 and total 19 written; read 8 (0.66) and 24 (0.65), which add up just as well. Together
        // they are 0.43 against 0.01 for 3 and 19, yet no rule pins either (each one's check is the
        // other), so neither is confirmed.
        let r = Self.corroborate([
            "q1.clears": (.integer(8), [(.integer(8), 0.66), (.integer(3), 0.10), (.integer(6), 0.09)]),
            "total.clears": (.integer(24), [(.integer(24), 0.65), (.integer(19), 0.10), (.integer(29), 0.09)]),
        ])
        #expect(r["q1.clears"]?.value == .integer(8))
        #expect(r["total.clears"]?.value == .integer(24))
        #expect((r["q1.clears"]?.confidence ?? 100) < 70)
        #expect((r["total.clears"]?.confidence ?? 100) < 70)
    }

    @Test func aReadingDoubtedForWhatTheReaderSawIsNeverRaised() throws {
        // A crossed-out 0: the network says 0 at 0.90, the reader capped the field at 40. The sums agree,
        // but a crossed-out digit must reach a person.
        let r = Self.corroborate(["q3.goals": (.integer(0), [(.integer(0), 0.90), (.integer(6), 0.08)])],
                                 confidence: ["q3.goals": 40])
        #expect(r["q3.goals"]?.confidence == 40)
        #expect(r["q3.goals"]?.value == .integer(0))
    }

    @Test func aRuleThatAnotherListedValueSatisfiesAsWellPinsNothing() throws {
        // q3.saves read 4 (0.55) or 3 (0.40). saves <= shots (4, sure) holds for both, so it does not
        // decide; the balance and the saves total each have another doubtful number. Not confirmed.
        let r = Self.corroborate([
            "q3.saves": (.integer(4), [(.integer(4), 0.55), (.integer(3), 0.40)]),
            "q3.goals": (.integer(0), [(.integer(0), 0.60), (.integer(5), 0.35)]),
            "total.saves": (.integer(37), [(.integer(37), 0.60), (.integer(42), 0.35)]),
        ])
        #expect(abs((r["q3.saves"]?.confidence ?? 0) - 55) < 1e-9)
    }

    @Test func sureNumbersWithAlternativesOfTheirOwnStillPin() throws {
        // As the network gives them: every number with a second guess at 1%. The row still decides q2.shots.
        var readings = SuggestionTests.readings(["q2.shots": (.integer(70), [(.integer(70), 0.60), (.integer(10), 0.38), (.integer(16), 0.02)])])
        for i in readings.indices where readings[i].reading.alternatives.isEmpty {
            guard case .integer(let n) = readings[i].reading.value else { continue }
            readings[i].reading.alternatives = [Alternative(value: .integer(n), probability: 0.99), Alternative(value: .integer(n + 1), probability: 0.01)]
        }
        let out = Dictionary(uniqueKeysWithValues: Self.corroborate(readings).map { ($0.id, $0.reading) })
        #expect(out["q2.shots"]?.value == .integer(10))
        #expect((out["q2.shots"]?.confidence ?? 0) >= 70)
        #expect(out.values.filter { $0.alternatives.count > 1 }.allSatisfy { $0.confidence >= 70 })
    }

    @Test func aFailingCheckboxRuleDoesNotStopTheWeighing() throws {
        // Neither context box ticked (a person's to settle); the doubtful 0 is still confirmed by its row.
        var readings = SuggestionTests.readings(["q3.goals": (.integer(0), [(.integer(0), 0.55), (.integer(6), 0.40)])])
        for i in readings.indices where readings[i].id.hasPrefix("context.") {
            readings[i].reading = FieldReading(value: .boolean(false), text: "", confidence: 99)
        }
        let out = Self.corroborate(readings)
        #expect((out.first { $0.id == "q3.goals" }?.reading.confidence ?? 0) >= 90)
    }

    @Test func aReadingWithTheReadersNoteIsNotRaised() throws {
        // The same doubtful 0 as above, but the reader set a mark aside beside it: a person looks.
        var readings = SuggestionTests.readings(["q3.goals": (.integer(0), [(.integer(0), 0.55), (.integer(6), 0.40)])])
        let i = try #require(readings.firstIndex { $0.id == "q3.goals" })
        readings[i].reading.notes = ["1 stray mark ignored"]
        let out = Self.corroborate(readings)
        #expect(abs(out[i].reading.confidence - 55) < 1e-9)
    }

    @Test func aDoubtedReadingIsNotReplacedEvenWhenTheSumsPreferAnother() throws {
        // Crossed out and read 70 (capped at 40); the row says 10. The value stays as read, for a person.
        let r = Self.corroborate(["q2.shots": (.integer(70), [(.integer(70), 0.60), (.integer(10), 0.38)])],
                                 confidence: ["q2.shots": 40])
        #expect(r["q2.shots"]?.value == .integer(70))
        #expect(r["q2.shots"]?.confidence == 40)
    }

    @Test func aScribbleTheNetworkListedLittleForIsNotReadFromTheSums() throws {
        // A scribble over q1.goals (2 written): the values the network listed hold only 0.46 of its belief
        // (7 at 0.25, 2 at 0.21). The row accepts 2 alone, so among the listed values 2 is near certain,
        // but more than half the chance is that the field is something else: it stays as read, for a person.
        let r = Self.corroborate(["q1.goals": (.integer(7), [(.integer(7), 0.25), (.integer(2), 0.21)])])
        #expect(r["q1.goals"]?.value == .integer(7))
        #expect(abs((r["q1.goals"]?.confidence ?? 100) - 25) < 1e-9)
    }

    @Test func readingsWithoutAlternativesAreLeftAlone() throws {
        let readings = SuggestionTests.readings([:])
        let out = Self.corroborate(readings)
        #expect(out.map(\.reading) == readings.map(\.reading))
    }
}
