import Foundation
import Testing
@testable import SheetModel

@Suite struct SuggestionTests {
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

    static func search(_ readings: [(id: String, reading: FieldReading)]) -> SuggestionOutcome {
        SuggestionSearch(template: LacrosseRuleTests.template, today: today).search(readings)
    }

    @Test func consistentReadingsNeedNoSuggestion() {
        #expect(Self.search(Self.readings([:])) == .consistent)
    }

    @Test func findsTheMisreadDigitFromItsAlternatives() throws {
        // The paper says q2.shots 10 (7 saves + 3 goals); the reader preferred 16.
        let outcome = Self.search(Self.readings(["q2.shots": (.integer(16), [(.integer(16), 0.55), (.integer(10), 0.40), (.integer(18), 0.05)])]))
        guard case .suggestion(let s) = outcome else { Issue.record("expected a suggestion, got \(outcome)"); return }
        #expect(s.changes == [Suggestion.Change(field: "q2.shots", from: .integer(16), to: .integer(10), probability: 0.40)])
        #expect(abs(s.relativeToRead - 0.40 / 0.55) < 1e-9)
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

    @Test func refusesToInventAFixThePaperDoesNotHave() {
        // No alternative of the doubtful saves (7, or 6) makes the sheet add up.
        #expect(Self.search(Self.slip(doubtful: "q2.saves", [(7, 0.8), (6, 0.2)])) == .inconsistent)
    }

    @Test func aSlipWhoseRulesReadNothingThatCouldChangeIsNotSearched() {
        // Only a clears number, in a column of its own that adds up, was read doubtfully: nothing the
        // failing rules read could change.
        #expect(Self.search(Self.slip(doubtful: "q2.clears", [(0, 0.8), (6, 0.2)])) == .noAlternatives)
    }

    @Test func withoutAlternativesThereIsNothingToSearch() {
        var values = LacrosseRuleTests.game
        values["q2.shots"] = .integer(11)
        let readings = LacrosseRuleTests.template.fields.map { ($0.id, FieldReading(value: values[$0.id] ?? .empty, text: "", confidence: 90)) }
        #expect(Self.search(readings) == .noAlternatives)
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

    @Test func aConfidentReadingIsTakenAsWrittenNotRepaired() {
        // The stat keeper wrote 11 where 10 adds up, and the network is sure it sees 11: that is a slip on
        // paper, not a misread, so nothing is suggested even though the sums point to 10.
        let outcome = Self.search(Self.readings(["q2.shots": (.integer(11), [(.integer(11), 0.995), (.integer(17), 0.004)])]))
        #expect(outcome == .inconsistent)
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
        guard case .suggestion(let s) = outcome else { Issue.record("expected a suggestion, got \(outcome)"); return }
        #expect(Dictionary(uniqueKeysWithValues: s.changes.map { ($0.field, $0.to) }) == ["q2.shots": .integer(10), "q4.clears": LacrosseRuleTests.game["q4.clears"]])
        #expect(s.changes.allSatisfy { $0.demandedByRules == true })
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

    /// The game with `changes` written on it, and the sole suspect of the rules it breaks.
    static func suspects(_ changes: [String: FieldValue], likeliestRepair: Suggestion? = nil) -> [SuggestionSearch.Suspect] {
        let values = LacrosseRuleTests.game.merging(changes) { $1 }
        let template = LacrosseRuleTests.template
        let failing = RuleCheck(template: template, values: values, today: today).failures().map(\.rule)
        return SuggestionSearch(template: template, today: today).soleSuspects(values, failing: failing, likeliestRepair: likeliestRepair)
    }

    @Test func oneNumberBothItsSumsAccuseIsTheSoleSuspect() throws {
        // q3.saves 4 read 9: q3's row and the saves column both demand 4 of it (and 9 saves of 4 shots
        // breaks q3's inequality as well).
        #expect(Self.suspects(["q3.saves": .integer(9)])
                == [.init(field: "q3.saves", value: .integer(4), rules: ["q3.balance", "q3.saves-within-shots", "saves.periods-sum"])])
        #expect(Self.suspects([:]).isEmpty)
        // A misread clears number beside it is a group of its own, with no suspect (one sum): q3.saves
        // still alone explains its two.
        #expect(Self.suspects(["q3.saves": .integer(9), "q2.clears": .integer(6)]).map(\.field) == ["q3.saves"])
    }

    @Test func oneMisreadChangesOneDigitLosesOneOrAddsOne() {
        func apart(_ written: FieldValue, _ read: FieldValue) -> Bool { SuggestionSearch.oneMisreadApart(written: written, read: read) }
        #expect(apart(.integer(11), .integer(17)) && apart(.integer(1), .integer(7)) && apart(.integer(30), .integer(37)))
        #expect(apart(.integer(25), .integer(5)) && apart(.integer(25), .integer(2)))   // a digit lost
        #expect(apart(.integer(3), .integer(33)) && apart(.integer(0), .integer(10)))   // a stray mark read as one
        #expect(apart(.empty, .integer(4)) && apart(.integer(4), .empty))               // an empty box is no digits
        #expect(!apart(.integer(13), .integer(7)) && !apart(.integer(19), .integer(25)) && !apart(.integer(5), .integer(125)))
        #expect(!apart(.integer(7), .integer(7)) && !apart(.integer(-1), .integer(1)) && !apart(.string("ab"), .integer(1)))
        // Of a number the reader was sure of, only a lost 1.
        func sureApart(_ written: FieldValue, _ read: FieldValue) -> Bool {
            SuggestionSearch.oneMisreadApart(written: written, read: read, lostOnlyIfOne: true)
        }
        #expect(sureApart(.integer(15), .integer(5)) && sureApart(.integer(1), .empty) && sureApart(.integer(11), .integer(17)))
        #expect(!sureApart(.integer(25), .integer(5)) && !sureApart(.integer(4), .empty))
        #expect(sureApart(.integer(3), .integer(33)) && sureApart(.integer(0), .integer(40)))   // an added digit is any digit
    }

    @Test func theNumbersOneMisreadOfWhichCouldBreakASum() {
        // Clears 3, 0, 5, 11, —, total 19; q4's 11 read 17 puts the column 6 over. q1 (3), q2 (0) and q3 (5)
        // would have to be negative and the total 25 (two digits from 19): only q4 could be the misread.
        let search = SuggestionSearch(template: LacrosseRuleTests.template, today: Self.today)
        let values = LacrosseRuleTests.game.merging(["q4.clears": .integer(17)]) { $1 }
        #expect(search.possibleCulprits(ofSum: "clears.periods-sum", values: values) == ["q4.clears"])
        // q3's 5 read 6 puts it 1 over: q1 as 2, q3 as 5 and q4 as 10 are each one digit away, the total
        // as 20 is two; q2 and the empty overtime cannot give 1 back.
        let one = LacrosseRuleTests.game.merging(["q3.clears": .integer(6)]) { $1 }
        #expect(search.possibleCulprits(ofSum: "clears.periods-sum", values: one) == ["q1.clears", "q3.clears", "q4.clears"])
        // The total read 9 (its 1 lost) is 10 under: the total as 19, or q4 as 1 (a 1 too many), could
        // each be it; the 3, 0 and 5 could not.
        let lost = LacrosseRuleTests.game.merging(["total.clears": .integer(9)]) { $1 }
        #expect(search.possibleCulprits(ofSum: "clears.periods-sum", values: lost) == ["q4.clears", "total.clears"])
        // A lost 1 is one even of a number the reader was sure of.
        let all = Set(LacrosseRuleTests.template.fields.map(\.id))
        #expect(search.possibleCulprits(ofSum: "clears.periods-sum", values: lost, sure: all) == ["q4.clears", "total.clears"])
        // The total's 19 read 39 is 20 over: the 3, the 0 and the 5 would each have lost a 2 (23, 20, 25).
        // The reader sure of the 3 and the 0, only a lost 1 could have made them: they are ruled out.
        let twenty = LacrosseRuleTests.game.merging(["total.clears": .integer(39)]) { $1 }
        #expect(search.possibleCulprits(ofSum: "clears.periods-sum", values: twenty)
                == ["q1.clears", "q2.clears", "q3.clears", "q4.clears", "total.clears"])
        #expect(search.possibleCulprits(ofSum: "clears.periods-sum", values: twenty, sure: ["q1.clears", "q2.clears"])
                == ["q3.clears", "q4.clears", "total.clears"])
        // Only an equality says what a number should have been.
        #expect(search.possibleCulprits(ofSum: "q1.saves-within-shots", values: values) == nil)
        #expect(search.possibleCulprits(ofSum: "no.such-rule", values: values) == nil)
    }

    /// A broken sum's blame, shared among its possible culprits by what the network gave each one's wanted value. q3's 5 read 6 puts
    /// the clears column 1 over: q1 as 2, q3 as 5 and q4 as 10 could each be the misread.
    @Test func aBrokenSumsBlameGoesWhereTheNetworkPutTheWantedValues() throws {
        let search = SuggestionSearch(template: LacrosseRuleTests.template, today: Self.today)
        func read(_ value: FieldValue, _ others: [(FieldValue, Double)] = []) -> FieldReading {
            var reading = FieldReading(value: value, text: value.writtenText ?? "", confidence: 97)
            let listed = others.reduce(0) { $0 + $1.1 }
            if value != .empty {
                reading.alternatives = [Alternative(value: value, probability: 0.999 - listed)] + others.map { Alternative(value: $0.0, probability: $0.1) }
            }
            return reading
        }
        var readings = LacrosseRuleTests.game.mapValues { read($0) }
        readings["ot.clears"] = read(.empty)   // an empty box that held no ink
        readings["q3.clears"] = read(.integer(6), [(.integer(5), 0.02)])
        let shares = try #require(search.culpritShares(ofSum: "clears.periods-sum", readings: readings))
        // q3: 0.02 / 0.979; q1 and q4, whose 2 and 10 the network did not list: 1e-4 / 0.999 each.
        let q3 = 0.02 / 0.979, other = 1e-4 / 0.999
        #expect(abs(shares["q3.clears"]! - q3 / (q3 + 2 * other)) < 1e-9)
        #expect(abs(shares["q1.clears"]! - other / (q3 + 2 * other)) < 1e-9 && shares["q1.clears"] == shares["q4.clears"])
        // q2 would be −1, the overtime too, the total 20 (two digits from 19): not possible culprits.
        #expect(Set(shares.keys) == ["q1.clears", "q3.clears", "q4.clears"])
        #expect(abs(shares.values.reduce(0, +) - 1) < 1e-12)
        // The network sure of q3's 6 as well: the three possible culprits share the blame alike.
        readings["q3.clears"] = read(.integer(6))
        let alike = try #require(search.culpritShares(ofSum: "clears.periods-sum", readings: readings))
        #expect(["q1.clears", "q3.clears", "q4.clears"].allSatisfy { abs(alike[$0]! - 1.0 / 3) < 1e-3 })
        // No shares: a sum that holds, two misreads no single one explains (q4's 11 read 71 besides), a
        // number read without the network's probabilities, and a rule that is no sum.
        #expect(search.culpritShares(ofSum: "clears.periods-sum", readings: LacrosseRuleTests.game.mapValues { read($0) }
            .merging(["ot.clears": read(.empty)]) { $1 }) == nil)
        var two = readings
        two["q4.clears"] = read(.integer(71))
        #expect(search.culpritShares(ofSum: "clears.periods-sum", readings: two) == nil)
        var unweighed = readings
        unweighed["q1.clears"] = FieldReading(value: .integer(3), text: "3", confidence: 90)
        #expect(search.culpritShares(ofSum: "clears.periods-sum", readings: unweighed) == nil)
        #expect(search.culpritShares(ofSum: "q1.saves-within-shots", readings: readings) == nil)
    }

    /// `wantedValue` solves a sum for one of its numbers in three evaluations; it must find what trying
    /// every value of the number's range finds (`demandedValue`), including none (an odd gap to a
    /// player's two-pointers, counted twice in his points; a value outside the range) and an empty box
    /// for a 0 in an overtime nobody played. Random readings, seeded, on the lacrosse sheet and a box score.
    @Test func solvingASumForOneNumberFindsWhatTryingEveryValueFinds() {
        var generator = SplitMix64(seed: 2026)
        // A box score's sums are thirteen numbers each: trying every value of each is slow, so fewer sheets.
        let templates = [(LacrosseRuleTests.template, 30), (SumCorroborationGroupsTests.box, 1)]
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

    @Test func noSoleSuspectOnOneSumOrTwoMisreadsInOneGroup() {
        // A clears number is in one sum only: any of the column's numbers could be the wrong one.
        #expect(Self.suspects(["q2.clears": .integer(6)]).isEmpty)
        // Two misreads that make the saves column add up break q2's row and the total's row: two groups
        // of one sum each.
        #expect(Self.suspects(["q2.saves": .integer(9), "total.saves": .integer(39)]).isEmpty)
        // Two misreads in different rows and columns: q4's row shares q4.shots with the shots column, so
        // the four failing rules are one group, and no number is in all of them.
        #expect(Self.suspects(["q2.shots": .integer(16), "q4.goals": .integer(8)]).isEmpty)
        // q2.saves and q2.goals both off, the row still adding up: the two columns fail, one sum each.
        #expect(Self.suspects(["q2.saves": .integer(9), "q2.goals": .integer(1)]).isEmpty)
    }

    @Test func aStrayMarkInAnUnplayedOvertimeIsSuspectedAsEmpty() {
        // No overtime was played; a mark in ot.shots read 3 breaks OT's row and the shots column. The sums
        // want 0 there, and an empty box is what they mean in a period nobody played.
        #expect(Self.suspects(["ot.shots": .integer(3)]).map(\.field) == ["ot.shots"])
        #expect(Self.suspects(["ot.shots": .integer(3)]).first?.value == .empty)
    }

    @Test func noSoleSuspectWhenTheLikeliestRepairChangesAnotherOfItsNumbers() {
        // q2.saves 7 read 13, total.saves 37 read 43 and total.shots 45 read 51: together they look like
        // q2.shots (10, read right) alone being 6 short. The search, weighing the alternatives, prefers
        // the three changes; then the group has no sole suspect.
        let misreads: [String: FieldValue] = ["q2.saves": .integer(13), "total.saves": .integer(43), "total.shots": .integer(51)]
        #expect(Self.suspects(misreads).map(\.field) == ["q2.shots"])
        let threeChanges = Suggestion(probability: 0.01, relativeToRead: 0.1, changes: [
            .init(field: "q2.saves", from: .integer(13), to: .integer(7), probability: 0.3),
            .init(field: "total.saves", from: .integer(43), to: .integer(37), probability: 0.3),
            .init(field: "total.shots", from: .integer(51), to: .integer(45), probability: 0.3),
        ])
        #expect(Self.suspects(misreads, likeliestRepair: threeChanges).isEmpty)
        // A repair of the suspect itself, or of a number outside the group, leaves it.
        let itself = Suggestion(probability: 0.01, relativeToRead: 0.1, changes: [
            .init(field: "q2.shots", from: .integer(10), to: .integer(16), probability: 0.01),
            .init(field: "q4.clears", from: .integer(11), to: .integer(12), probability: 0.3),
        ])
        #expect(Self.suspects(misreads, likeliestRepair: itself).map(\.field) == ["q2.shots"])
    }

    /// A scan fills in the changes to numbers two sums read, whatever the network gave them; one sum says
    /// one of its numbers is wrong, not which, so a clears number (its column alone) is filled in only when
    /// the network gave the value 0.05 or more itself, never when the sums alone demand it.
    @Test func numbersTwoSumsReadAreFilledInAndOneSumsOnlyWhenTheNetworkGaveTheValue() {
        let search = SuggestionSearch(template: LacrosseRuleTests.template, today: Self.today)
        let suggestion = Suggestion(probability: 0.01, relativeToRead: 0.1, changes: [
            .init(field: "q2.saves", from: .integer(13), to: .integer(7), probability: 0.01),
            .init(field: "total.shots", from: .integer(51), to: .integer(45), probability: 0.02, demandedByRules: true),
            .init(field: "q3.clears", from: .integer(4), to: .integer(9), probability: 0.06),
            .init(field: "q4.clears", from: .integer(11), to: .integer(12), probability: 0.04),
            .init(field: "total.clears", from: .integer(40), to: .integer(41), probability: 0.3, demandedByRules: true),
            .init(field: "ot.shots", from: .integer(0), to: .empty, probability: 0.3),
        ])
        #expect(search.fillableChanges(suggestion).map(\.field) == ["q2.saves", "total.shots", "q3.clears", "ot.shots"])
        #expect(search.readByTwoSums("q2.goals") && search.readByTwoSums("total.clears") == false)
    }

    /// A filled-in number is flagged under the line; its note keeps what the digits read and how sure the
    /// reader was of them, which the review's search no longer takes for the new value's.
    @Test func aFilledInNumberKeepsTheDigitsReadingInItsNote() {
        var reading = FieldReading(value: .integer(13), text: "13", confidence: 97)
        reading.doubt(becauseOf: "in failing rule q2.balance", line: 70)
        reading.fillIn(.init(field: "q2.saves", from: .integer(13), to: .integer(18), probability: 0.2), line: 70)
        #expect(reading.value == .integer(18) && reading.text == "13" && reading.flagged && reading.confidence == 69)
        #expect(reading.notes.last == "the digits alone read 13 (confidence 97); filled in from the sheet's suggestion: 18")
        #expect(SumCorroboration.readFromSums(reading))
        #expect(reading.confidenceBeforeRuleDoubt == 69)
        var stray = FieldReading(value: .integer(1), text: "1", confidence: 40, flagged: true)
        stray.fillIn(.init(field: "ot.shots", from: .integer(1), to: .empty, probability: 0.1), line: 70)
        #expect(stray.value == .empty && stray.confidence == 69)
        #expect(stray.notes == ["the digits alone read 1 (confidence 40); filled in from the sheet's suggestion: empty"])
        #expect(stray.filledInFromSuggestion && !reading.notes.dropLast().contains { $0.contains("filled in") })
        // A value the sums had chosen keeps the digits' reading in its earlier note; the new one says so.
        var chosen = FieldReading(value: .integer(16), text: "10", confidence: 81, flagged: true,
                                  notes: ["the digits alone read 10 (confidence 41); the sums make 16 likelier"])
        chosen.fillIn(.init(field: "q2.saves", from: .integer(16), to: .integer(12), probability: 0.3), line: 70)
        #expect(chosen.value == .integer(12) && chosen.confidence == 69)
        #expect(chosen.notes.last == "the sums had chosen 16; filled in from the sheet's suggestion: 12")
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
