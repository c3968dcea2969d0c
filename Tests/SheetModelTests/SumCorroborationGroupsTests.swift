import Foundation
import Testing
@testable import SheetModel

/// The sums weigh, and the search mends, each group of rules that share no number on its own
/// (`SuggestionSearch.groups`), so a box score, whose hundred and more numbers with alternatives no single
/// search can hold, is weighed and mended column by column.
@Suite struct SumCorroborationGroupsTests {
    static let box = try! SheetTemplate.decode(try! Data(contentsOf: repositoryRoot.appendingPathComponent("Templates/basketball-box.json")))
    static let players = (1...12).map { String(format: "p%02d", $0) }
    /// Each player: 1 of 2 two-pointers, 0 of 1 three, 1 of 2 free throws, 3 points, 2 rebounds, 1 assist,
    /// 1 steal, 0 blocks, 1 turnover, 2 fouls; the team line is twelve times that.
    static let line: [String: Int] = ["fg2m": 1, "fg2a": 2, "fg3m": 0, "fg3a": 1, "ftm": 1, "fta": 2, "pts": 3,
                                      "reb": 2, "ast": 1, "stl": 1, "blk": 0, "to": 1, "pf": 2]

    /// Every count of the box score read 99.5% sure, with a second value at 0.5% (so that each has
    /// alternatives), but for `misreads`; the opponent scored 30 (the score must be there).
    static func readings(_ misreads: [String: (FieldValue, [(FieldValue, Double)])]) -> [(id: String, reading: FieldReading)] {
        box.fields.map { field in
            if field.id == "opp.score" { return (field.id, FieldReading(value: .integer(30), text: "30", confidence: 99)) }
            let parts = field.id.split(separator: ".").map(String.init)
            guard field.kind == .count, parts.count == 2, let each = line[parts[1]] else {
                return (field.id, FieldReading(value: .empty, text: "", confidence: 99))
            }
            let truth = parts[0] == "team" ? 12 * each : each
            let (read, alternatives) = misreads[field.id] ?? (.integer(truth), [(.integer(truth), 0.995), (.integer(truth + 1), 0.005)])
            var reading = FieldReading(value: read, text: "", confidence: alternatives[0].1 * 100)
            reading.alternatives = alternatives.map { Alternative(value: $0.0, probability: $0.1) }
            return (field.id, reading)
        }
    }

    @Test func rulesThatShareNoNumberFormGroupsOfTheirOwn() throws {
        let boxGroups = SuggestionSearch(template: Self.box).groups.map(\.fields)
        let rebounds = try #require(boxGroups.first { $0.contains("p01.reb") })
        let reboundFields: [String] = Self.players.map { $0 + ".reb" } + ["team.reb"]
        #expect(rebounds == Set(reboundFields))
        let shooting = try #require(boxGroups.first { $0.contains("p01.pts") })
        #expect(shooting.count == 13 * 7 + 1, "made, attempted and points of twelve players and the team, and the opponent's score: \(shooting.count)")
        #expect(shooting.contains("team.fta") && !shooting.contains("p01.reb"))
        // A field belongs to one group only.
        let fieldCount = boxGroups.reduce(0) { $0 + $1.count }
        #expect(fieldCount == Set(boxGroups.flatMap { $0 }).count)

        let lacrosseGroups = SuggestionSearch(template: LacrosseRuleTests.template).groups.map(\.fields)
        let clears = try #require(lacrosseGroups.first { $0.contains("q1.clears") })
        #expect(clears.contains("total.clears") && !clears.contains { $0.hasSuffix(".shots") })
        let grid = try #require(lacrosseGroups.first { $0.contains("q2.shots") })
        #expect(grid.isSuperset(of: ["q2.saves", "q2.goals", "total.shots", "total.goals"]))
    }

    @Test func aBoxScoresColumnWeighsItsDoubtfulNumber() throws {
        let readings = Self.readings(["p03.reb": (.integer(8), [(.integer(8), 0.55), (.integer(2), 0.40), (.integer(3), 0.05)])])
        #expect(readings.filter { $0.reading.alternatives.count > 1 }.count > 64, "more than one search can hold")
        let out = SumCorroboration(search: SuggestionSearch(template: Self.box)).corroborate(readings)
        #expect(out.map(\.id) == readings.map(\.id))
        let r = Dictionary(uniqueKeysWithValues: out.map { ($0.id, $0.reading) })
        let rebound = try #require(r["p03.reb"])
        #expect(rebound.value == .integer(2), "the rebounds column, every other number sure, demands 2")
        #expect(SumCorroboration.readFromSums(rebound) && rebound.flagged)
        // The other columns hold: their numbers keep their values, unflagged. The shooting group, more than
        // one search can hold, has no failing rule whose numbers could be weighed: it is left as read.
        #expect(r["p03.ast"]?.value == .integer(1) && r["p03.ast"]?.flagged == false)
        #expect(r["team.pts"] == readings.first { $0.id == "team.pts" }?.reading)
    }

    @Test func aBoxScoresShootingNumbersAreWeighedWhenTheirRulesBreak() throws {
        // 1 free throw made read 7 at 0.60, 1 at 0.38: the player's points and the made column both say 1.
        let readings = Self.readings(["p05.ftm": (.integer(7), [(.integer(7), 0.60), (.integer(1), 0.38), (.integer(9), 0.02)])])
        let out = SumCorroboration(search: SuggestionSearch(template: Self.box)).corroborate(readings)
        let ftm = try #require(out.first { $0.id == "p05.ftm" }?.reading)
        #expect(ftm.value == .integer(1) && ftm.confidence >= 70, "\(ftm.value) at \(ftm.confidence)")
        #expect(SumCorroboration.readFromSums(ftm))
    }

    @Test func theSuggestionMendsEachBrokenColumnOnItsOwn() throws {
        // Two rebounds read 7 and 8 where 2 was written (2 their second choice), and a steal read 7 where 1
        // was: two columns break, each mended by its own numbers.
        let readings = Self.readings([
            "p02.reb": (.integer(7), [(.integer(7), 0.70), (.integer(2), 0.29), (.integer(1), 0.01)]),
            "p09.reb": (.integer(8), [(.integer(8), 0.80), (.integer(2), 0.15), (.integer(3), 0.05)]),
            "p04.stl": (.integer(7), [(.integer(7), 0.90), (.integer(1), 0.09), (.integer(9), 0.01)]),
        ])
        guard case .suggestion(let suggestion) = SuggestionSearch(template: Self.box).search(readings) else {
            Issue.record("no suggestion"); return
        }
        #expect(Set(suggestion.changes.map(\.field)) == ["p02.reb", "p09.reb", "p04.stl"])
        #expect(suggestion.changes.allSatisfy { $0.to == .integer($0.field.hasSuffix("stl") ? 1 : 2) })
        // The repairs are independent: how much less likely than the reading they are multiplies.
        #expect(abs(suggestion.relativeToRead - 0.29 / 0.70 * 0.15 / 0.80 * 0.09 / 0.90) < 1e-9)
    }

    @Test func aColumnThePaperBreaksBeyondRepairIsLeftWhileTheOthersAreMended() throws {
        // The rebounds mend; the steals do not: 2 too many, read sure, and every number of the column
        // offers only one more than it reads. The columns share no number: the rebounds' repair is still
        // suggested, and the steals are named as beyond it.
        let readings = Self.readings([
            "p02.reb": (.integer(7), [(.integer(7), 0.70), (.integer(2), 0.29), (.integer(1), 0.01)]),
            "p04.stl": (.integer(3), [(.integer(3), 0.995), (.integer(4), 0.005)]),
        ])
        let outcome = SuggestionSearch(template: Self.box).search(readings)
        guard case .partial(let suggestion, let beyondRepair) = outcome else {
            Issue.record("expected a partial suggestion, got \(outcome)"); return
        }
        #expect(suggestion.changes.map(\.field) == ["p02.reb"] && suggestion.changes.first?.to == .integer(2))
        #expect(beyondRepair == ["stl.players-sum"])
        // With the rebounds read right, the steals alone are beyond repair: nothing is suggested.
        let stealsOnly = Self.readings(["p04.stl": (.integer(3), [(.integer(3), 0.995), (.integer(4), 0.005)])])
        #expect(SuggestionSearch(template: Self.box).search(stealsOnly) == .inconsistent)
    }

    @Test func aGroupNothingCanMendIsLeftToThePersonWhileTheOthersAreMended() throws {
        // Player 3's points read 9 where 3 was written, and every number of its rules (the player's points,
        // the points column) read sure with nothing else offered, as after a person confirmed them: the
        // shooting group cannot be mended, yet the rebounds column still gets its repair.
        let unchangeable = Set(Self.players.map { $0 + ".pts" } + ["team.pts", "p03.fg2m", "p03.fg3m", "p03.ftm"])
        var readings = Self.readings(["p02.reb": (.integer(7), [(.integer(7), 0.70), (.integer(2), 0.29), (.integer(1), 0.01)])])
        for i in readings.indices where unchangeable.contains(readings[i].id) {
            readings[i].reading.alternatives = []
            if readings[i].id == "p03.pts" { readings[i].reading.value = .integer(9) }
        }
        guard case .suggestion(let suggestion) = SuggestionSearch(template: Self.box).search(readings) else {
            Issue.record("no suggestion"); return
        }
        #expect(suggestion.changes.map(\.field) == ["p02.reb"])
    }

    @Test func aLongColumnDoesNotRaiseADoubtfulNumberOverTheLineAlone() throws {
        // A rebound read 2 at 0.55 (8 at 0.40): its thirteen-number column adds up with 2 and not with 8, but
        // any of the twelve others may be a sure misread that 2 balances, so it stays doubtful. A lacrosse
        // clears number, in a column of six, is raised by the same word.
        let box = SumCorroboration(search: SuggestionSearch(template: Self.box))
            .corroborate(Self.readings(["p03.reb": (.integer(2), [(.integer(2), 0.55), (.integer(8), 0.40), (.integer(3), 0.05)])]))
        let rebound = try #require(box.first { $0.id == "p03.reb" }?.reading)
        #expect(rebound.value == .integer(2) && rebound.confidence < 70, "\(rebound.confidence)")
        let clears = try #require(SumCorroborationTests.corroborate(["q1.clears": (.integer(3), [(.integer(3), 0.55), (.integer(8), 0.40), (.integer(9), 0.05)])])["q1.clears"])
        #expect(clears.value == .integer(3) && clears.confidence >= 70, "\(clears.confidence)")
    }
}
