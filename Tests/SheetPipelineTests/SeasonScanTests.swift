import Foundation
import SheetModel
import SheetPipeline
import Testing

/// The store's games reach a hand-filled sheet's date through `ScanOptions.gameDates`.
@Suite struct SeasonScanTests {
    @Test func theClubsSeasonAYearAwayMakesAHandwrittenDateLessSure() throws {
        let path = Fixtures.testImages.appendingPathComponent("lacrosse-goalie/handwritten-scan/sheet-001.jpg").path
        let truth = try GroundTruth.load(GroundTruth.path(forImage: path))
        guard case .string(let written)? = truth.fields["date"], let day = RuleEvaluator.parseDate(written) else {
            Issue.record("the sheet's truth has no date"); return
        }
        func dateReading(_ games: SeasonGames) throws -> FieldReading {
            var options = ScanOptions(writing: .hand, today: Fixtures.scanDay)
            options.gameDates = games
            let result = try SheetScanner(library: try Fixtures.library(), options: options).scan(path)
            return try #require(result.fields.first { $0.id == "date" }?.reading)
        }
        let alone = try dateReading(SeasonGames())
        #expect(alone.value == .string(written))
        // Twenty games of another athlete, a season that ended ten months before this game: the date now lies
        // outside the club's season, and is less likely than with no season known.
        let games = (0..<20).map { i -> (athlete: String, day: GameDay) in
            let date = day.addingTimeInterval(-Double(300 + 5 * i) * 86_400)
            return ("Somebody Else", GameDay(date: String(date.formatted(.iso8601.year().month().day())), context: "club"))
        }
        let offSeason = try dateReading(SeasonGames(games))
        #expect(offSeason.value == .string(written))
        #expect(offSeason.confidence < alone.confidence)
        #expect(offSeason.inkConfidence == alone.inkConfidence, "the ink read the same")
    }
}
