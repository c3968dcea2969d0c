import Foundation
import SheetModel
@testable import SheetReport
@testable import SheetStore
import Testing

/// The page as text: escaping, the empty store, one game, a thousand games, and the numbers the charts draw.
@Suite struct ReportPageTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func game(_ id: Int64, athlete: String? = "Quinn Walker", date: String? = "2026-04-11", opponent: String? = "Lincoln High",
                     context: String? = "high_school", shots: Int? = 20, saves: Int? = 15, path: String = "/sheets/a.jpg",
                     periods: [String: GoalieStats] = [:]) -> GoalieGameLog {
        GoalieGameLog(id: id, athlete: athlete, date: date, context: context, conference: nil, opponent: opponent, source: "ocr", givenByFlags: [],
                      sheetPath: path, sheetSHA256: String(repeating: "a", count: 64), approvedAt: now, approvedBy: "statsheet (clean sheet)",
                      totals: GoalieStats(shots: shots, saves: saves, goalsAllowed: shots.map { $0 - (saves ?? 0) }, clears: nil), periods: periods)
    }

    static func sheet(_ id: Int64, path: String, status: SheetStatus) -> SheetSummary {
        SheetSummary(id: id, sha256: String(repeating: "b", count: 64), path: path, templateID: "lacrosse-goalie", templateVersion: 1,
                     status: status, scannedAt: now, alignmentQuality: 0.9, flaggedFields: 0, ruleFailures: [])
    }

    static func data(_ games: [GoalieGameLog], sheets: [SheetSummary] = [], failures: [FailureRecord] = [], logs: [GameLogSummary] = [],
                     flagged: [FlaggedReading] = [], corrections: [Correction] = []) -> ReportData {
        ReportData(storeName: "store.sqlite", generatedAt: now, goalieGames: games, sheets: sheets, failures: failures, gameLogs: logs,
                   flaggedReadings: flagged, corrections: corrections)
    }

    /// Occurrences of `needle` in `text`.
    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    /// The text of the element of `id` up to its closing tag `end`.
    static func element(_ id: String, in html: String, end: String = "</svg>") throws -> String {
        let start = try #require(html.range(of: "id=\"\(id)\""), "no element \(id)")
        let stop = try #require(html.range(of: end, range: start.upperBound..<html.endIndex))
        return String(html[start.lowerBound..<stop.upperBound])
    }

    @Test(arguments: ["<img src=x onerror=alert(1)>", "</script><script>alert(\"x\")</script>", "O'Brien \"The Wall\" & <b>co</b>"])
    func storedTextIsEscapedEverywhere(_ hostile: String) throws {
        let html = ReportPage.render(Self.data(
            [Self.game(1, athlete: hostile, opponent: hostile, context: hostile, path: hostile)],
            sheets: [Self.sheet(1, path: hostile, status: .needsReview)],
            failures: [FailureRecord(path: hostile, sha256: nil, error: hostile, attempts: 1, firstFailedAt: Self.now, lastFailedAt: Self.now)],
            logs: [GameLogSummary(id: 2, sheetID: 1, role: "goalie", athlete: hostile, date: nil, opponent: hostile, context: nil,
                                  approvedAt: nil, approvedBy: nil, duplicateOf: nil, pendingReason: hostile)],
            flagged: [FlaggedReading(sheetID: 1, field: hostile, reading: FieldReading(value: .string(hostile), text: hostile, confidence: 10, flagged: true,
                                                                                      doubts: [.earlierNote(hostile)]))],
            corrections: [Correction(id: 1, sheetID: 1, field: hostile, original: FieldReading(value: .string(hostile), text: hostile, confidence: 3),
                                     newValue: .string(hostile), reviewer: hostile, at: Self.now, note: hostile)]))
        #expect(!html.contains(hostile), "the raw text reached the page")
        #expect(html.contains(HTML.escape(hostile)))
        #expect(Self.count("<img", in: html) == 0)
        #expect(Self.count("<script", in: html) == 0)
        #expect(Self.count("<b>", in: html) == 0)
    }

    @Test func anEmptyStoreSaysSoAndDrawsNothing() {
        let html = ReportPage.render(Self.data([]))
        #expect(html.contains("No approved goalie games."))
        #expect(html.contains("No approved box scores."))
        #expect(html.contains("Nothing waits for review."))
        #expect(html.contains("No file failed."))
        #expect(html.contains("No field is flagged."))
        #expect(html.contains("No reviewer has changed a value."))
        #expect(Self.count("class=\"mark", in: html) == 0)
        #expect(!html.lowercased().contains("nan"))
    }

    @Test func filtersThatMatchNothingSaySo() {
        var data = Self.data([])
        data.filters = ReportData.Filters(athlete: "Nobody")
        let html = ReportPage.render(data)
        #expect(html.contains("No approved goalie games match these filters."))
        #expect(!html.contains("id=\"box-scores\""), "--athlete alone leaves box scores out")
        #expect(html.contains("<title>Season report: Nobody</title>"))
    }

    /// Nothing on the page can load anything: a policy forbidding every fetch, and no address in the file.
    @Test func thePageNamesNoAddressAndForbidsLoads() {
        let html = ReportPage.render(Self.data([Self.game(1), Self.game(2, date: "2026-04-18")]))
        #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"))
        for address in ["http:", "https:", "//", "src=", "<script", "<link", "@import"] {
            #expect(!html.replacingOccurrences(of: "<!DOCTYPE", with: "").contains(address), "\(address)")
        }
        #expect(Self.count("url(", in: html) == Self.count("url(#hatch)", in: html), "only the page's own hatch pattern")
    }

    @Test func oneGameIsOnePointAndOneRow() throws {
        let html = ReportPage.render(Self.data([Self.game(7, shots: 12, saves: 9)]))
        let chart = try Self.element("athlete-0-quinn-walker-save", in: html)
        #expect(Self.count("<circle class=\"mark dot\"", in: chart) == 1, "the game's save %")
        #expect(Self.count("class=\"mark dot\"", in: chart) == 2, "and the season to date, the same point")
        #expect(chart.contains("<title>2026-04-11: Save % in the game 75.0</title>"))
        let table = try Self.element("athlete-0-quinn-walker", in: html, end: "</article>")
        #expect(Self.count("<tr data-row=\"7\"", in: table) == 3, "the games table, and the numbers behind two charts")
        #expect(table.contains("<td data-col=\"save_pct\" class=\"num\">75.0</td>"))
        #expect(!html.lowercased().contains("nan") && !html.contains("inf"))
    }

    @Test func aThousandGamesStayReadable() throws {
        let games = (0..<1000).map { (i: Int) -> GoalieGameLog in
            let date = String(format: "2026-%02d-%02d", i / 28 % 12 + 1, i % 28 + 1)
            let shots: Int = 10 + i % 7, saves: Int = 5 + i % 5
            return Self.game(Int64(i + 1), date: date, shots: shots, saves: saves)
        }
        let html = ReportPage.render(Self.data(games))
        let save = try Self.element("athlete-0-quinn-walker-save", in: html)
        #expect(Self.count("<path class=\"mark line\"", in: save) == 2)
        #expect(Self.count(" L", in: save) == 2 * 999, "one unbroken line of 1000 points per series")
        #expect(Self.count("class=\"mark dot\"", in: save) == 0, "no markers on a thousand points")
        #expect(Self.count("text-anchor=\"middle\"", in: save) <= 10, "date labels thinned out")
        let counts = try Self.element("athlete-0-quinn-walker-counts", in: html)
        #expect(Self.count("<rect class=\"mark bar\"", in: counts) == 0, "counts drawn as lines past \(GameChart.maxBarGames) games")
        #expect(Self.count("<path class=\"mark line\"", in: counts) == 3)
        let table = try Self.element("athlete-0-quinn-walker", in: html, end: "</article>")
        #expect(Self.count("data-table=\"games\"", in: table) == 2, "a games table per season: January–July and August–December")
        #expect(Self.count("<tr data-row=", in: table) == 3 * 1000 + 2 * 2, "three tables of every game, and each season's two lines")
        #expect(Self.count("class=\"season-mark\"", in: save) == 1, "the season boundary on the trend")
    }

    /// The season to date is all saves over all shots so far, not a mean of each game's percentage.
    @Test func seasonToDateWeighsEachShot() {
        let season = AthleteSeason(name: "A", games: [Self.game(1, shots: 10, saves: 5), Self.game(2, shots: 30, saves: 27),
                                                      Self.game(3, shots: nil, saves: nil)])
        #expect(season.savePercents == [50, 90, nil])
        #expect(season.seasonToDate == [50, 80, 80])
    }

    @Test func gamesAreGroupedByAthleteWhateverTheCaseAndSortedByDate() {
        let seasons = AthleteSeason.seasons([Self.game(1, athlete: "Sam", date: "2026-05-01"), Self.game(2, athlete: "Quinn"),
                                             Self.game(3, athlete: "sam", date: "2026-03-01")])
        #expect(seasons.map(\.displayName) == ["Sam", "Quinn"])
        #expect(seasons.first?.games.map(\.id) == [3, 1])
    }

    @Test func highSchoolAndClubSideBySide() {
        let season = AthleteSeason(name: "A", games: [Self.game(1, context: "club", shots: 10, saves: 8), Self.game(2, shots: 20, saves: 10),
                                                      Self.game(3, context: "club", shots: 10, saves: 6), Self.game(4, context: nil)])
        #expect(season.contexts == [ContextSplit(context: "high_school", games: 1, savePercent: 50, goalsAgainstPerGame: 10),
                                    ContextSplit(context: "club", games: 2, savePercent: 70, goalsAgainstPerGame: 3)])
    }

    @Test func periodsAreDrawnOnlyWhenRecorded() {
        let q = GoalieStats(shots: 5, saves: 4, goalsAllowed: 1, clears: nil)
        let html = ReportPage.render(Self.data([Self.game(1, periods: ["p1": q, "p2": q, "p3": GoalieStats(), "ot": GoalieStats()])]))
        #expect(html.contains("id=\"athlete-0-quinn-walker-p1-save\""))
        #expect(html.contains("id=\"athlete-0-quinn-walker-p2-goals\""))
        #expect(!html.contains("-p3-save\""))
        #expect(!html.contains("-ot-save\""))
    }

    /// A period with goals but no shot recorded has no save %: its panel says so rather than drawing empty axes.
    @Test func aChartWithNothingToDrawSaysSo() throws {
        let html = ReportPage.render(Self.data([Self.game(1, periods: ["p1": GoalieStats(shots: nil, saves: nil, goalsAllowed: 2, clears: nil)])]))
        let save = try Self.element("athlete-0-quinn-walker-p1-save", in: html)
        #expect(save.contains(">no shots in this period</text>"))
        #expect(Self.count("class=\"mark", in: save) == 0)
        let goals = try Self.element("athlete-0-quinn-walker-p1-goals", in: html)
        #expect(Self.count("<rect class=\"mark bar\"", in: goals) == 1)
    }

    @Test func theStoreStateCountsWhatWaitsAndWhatWasChanged() {
        let reading = FieldReading(value: .integer(1), text: "1", confidence: 30)
        let corrections = [
            Correction(id: 1, sheetID: 1, field: "q1.shots", original: reading, newValue: .integer(7), reviewer: "ann", at: Self.now),
            Correction(id: 2, sheetID: 1, field: "q1.shots", original: reading, newValue: .integer(8), reviewer: "ann", at: Self.now),
            Correction(id: 3, sheetID: 2, field: "q1.saves", original: reading, newValue: .integer(2), reviewer: "bob", at: Self.now,
                       undoneAt: Self.now, undoneBy: "bob"),
        ]
        let state = StoreState(Self.data([], sheets: [Self.sheet(1, path: "/a.jpg", status: .clean), Self.sheet(2, path: "/b.jpg", status: .needsReview)],
                                          logs: [GameLogSummary(id: 5, sheetID: 2, role: "goalie", athlete: nil, date: nil, opponent: nil, context: nil,
                                                                approvedAt: nil, approvedBy: nil, duplicateOf: nil, pendingReason: "the sheet needs review")],
                                          flagged: [Self.flagged("a", 12, [.faintCheckmark(inkedPercent: 3)]), Self.flagged("b", 40),
                                                    Self.flagged("c", 69, [.inFailingRule("q2.balance")], alone: 97)],
                                          corrections: corrections))
        #expect((state.sheets, state.clean, state.needsReview, state.waiting.count) == (2, 1, 1, 1))
        // Counted by the readings' own causes, as eval counts them: two unsure on their own, one sure until a rule broke.
        #expect(state.flagCauses.map(\.cause) == [FieldReading.FlagCause.unsureInk.label, FieldReading.FlagCause.sureButDoubted.label])
        #expect(state.flagCauses.map(\.fields) == [2, 1])
        #expect(state.valuesChanged == 1, "two live corrections of one field, and one undone")
    }

    static func flagged(_ field: String, _ confidence: Double, _ doubts: [ReadingDoubt] = [], alone: Double? = nil) -> FlaggedReading {
        var reading = FieldReading(value: .integer(1), text: "1", confidence: confidence, flagged: true, doubts: doubts)
        reading.inkConfidence = alone
        return FlaggedReading(sheetID: 2, field: field, reading: reading)
    }

    @Test(arguments: [(100.0, 5, [0.0, 25, 50, 75, 100]), (7, 5, [0, 2, 4, 6, 8]), (0, 3, [0, 1]), (13, 3, [0, 10, 20])])
    func axisTicksAreRoundAndCoverTheData(_ max: Double, _ count: Int, _ ticks: [Double]) {
        #expect(Axis.ticks(max: max, count: count) == ticks)
    }
}
