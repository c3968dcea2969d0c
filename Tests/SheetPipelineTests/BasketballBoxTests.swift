import Foundation
import SheetModel
import Testing
@testable import SheetPipeline

/// The basketball box score read from a rendered, filled sheet: its rules catch a player line whose
/// points do not add up, by name, and a sixth foul is a warning. No basketball code exists: only
/// Templates/basketball-box.json.
@Suite struct BasketballBoxTests {
    static func template() throws -> SheetTemplate {
        guard let t = try Fixtures.library().template(id: "basketball-box") else { throw FixtureError("no basketball-box template") }
        return t
    }

    /// Three players (the other nine rows left empty), consistent on paper: per player 2PT, 3PT, FT made
    /// and attempted, points = 2·2PM + 3·3PM + FTM, and the team row the column sums.
    static let game: [String: FieldValue] = {
        let columns = ["fg2m", "fg2a", "fg3m", "fg3a", "ftm", "fta", "pts", "reb", "ast", "stl", "blk", "to", "pf"]
        let players: [[Int]] = [
            [4, 9, 2, 5, 3, 4, 17, 6, 2, 1, 0, 3, 2],
            [3, 7, 0, 1, 1, 2, 7, 9, 1, 0, 2, 1, 4],
            [1, 3, 1, 4, 0, 0, 5, 2, 5, 2, 0, 2, 1],
        ]
        var values: [String: FieldValue] = ["date": .string("2026-01-16"), "venue.home": .boolean(true),
                                            "venue.away": .boolean(false), "opp.score": .integer(31)]
        for (i, line) in players.enumerated() {
            for (column, n) in zip(columns, line) { values["p0\(i + 1).\(column)"] = .integer(n) }
        }
        for (c, column) in columns.enumerated() { values["team.\(column)"] = .integer(players.reduce(0) { $0 + $1[c] }) }
        return values
    }()

    @Test func consistentBoxScoreHoldsWithEmptyRows() throws {
        let result = try AlignmentTests.scan(try Fixtures.filledSheet(try Self.template(), values: Self.game))
        #expect(result.template == "basketball-box")
        #expect(result.ruleFailures.isEmpty, "\(result.ruleFailures)")
        #expect(result.reading("team.pts")?.value == .integer(29))
        #expect(result.reading("p12.pts")?.value == .empty)
    }

    @Test func aPlayerLineWhosePointsDoNotAddUpIsCaughtByName() throws {
        var slip = Self.game
        slip["p02.pts"] = .integer(9)          // 2·3 + 3·0 + 1 = 7 on the line
        slip["team.pts"] = .integer(31)        // and the team total follows the wrong line, so the column still adds up
        let result = try AlignmentTests.scan(try Fixtures.filledSheet(try Self.template(), values: slip))
        #expect(result.status == .needsReview)
        #expect(result.reading("p02.pts")?.value == .integer(9), "the number written is kept as read")
        #expect(result.ruleFailures.map(\.rule).contains("p02.points"), "\(result.ruleFailures.map(\.rule))")
        let failure = try #require(result.ruleFailures.first { $0.rule == "p02.points" })
        #expect(failure.detail == "p02.pts 9, 2 * p02.fg2m 3 + 3 * p02.fg3m 0 + p02.ftm 1 = 7")
        #expect(failure.severity == .error)
        #expect(result.reading("p02.pts")?.flagged == true)
    }

    @Test func aSixthFoulIsAWarning() throws {
        var fouled = Self.game
        fouled["p02.pf"] = .integer(6)
        fouled["team.pf"] = .integer(9)
        let result = try AlignmentTests.scan(try Fixtures.filledSheet(try Self.template(), values: fouled))
        #expect(result.ruleFailures.map(\.rule) == ["p02.fouls"])
        #expect(result.ruleFailures.first?.severity == .warning)
        #expect(result.status == .needsReview, "a person should see it")
        #expect(result.suggestions.isEmpty, "a warning is not mended")
    }
}
