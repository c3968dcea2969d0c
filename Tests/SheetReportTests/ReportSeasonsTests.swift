import Foundation
import SheetModel
@testable import SheetReport
@testable import SheetStore
import Testing

/// Sports and seasons kept apart, insights only beyond chance, and trust said by cause.
@Suite struct ReportSeasonsTests {
    typealias P = ReportPageTests

    static func sheet(_ id: Int64, template: String, failures: [RuleFailure] = []) -> SheetSummary {
        SheetSummary(id: id, sha256: String(repeating: "c", count: 64), path: "/club/scans/sheet-\(id).jpg", templateID: template,
                     templateVersion: 1, status: .clean, scannedAt: P.now, alignmentQuality: 0.9, flaggedFields: 0, ruleFailures: failures)
    }

    static func log(_ id: Int64, sheet: Int64) -> GameLogSummary {
        GameLogSummary(id: id, sheetID: sheet, role: "goalie", athlete: nil, date: nil, opponent: nil, context: nil, approvedAt: P.now,
                       approvedBy: "x", duplicateOf: nil, pendingReason: nil)
    }

    /// Quinn plays lacrosse in two school years and hockey in one: three seasons, two sections.
    static let twoSports: ReportData = {
        let games = [P.game(1, date: "2025-04-01", path: "/club/scans/sheet-1.jpg"), P.game(2, date: "2025-09-20", shots: 10, saves: 10),
                     P.game(3, date: "2026-03-14"), P.game(4, date: "2026-01-10", opponent: "Ice Hawks")]
        return ReportData(storeName: "s", generatedAt: P.now, goalieGames: games,
                          sheets: [sheet(1, template: "lacrosse-goalie", failures: [RuleFailure(rule: "q1.balance", message: "Q1 does not add up",
                                                                                                  detail: "", fields: [])]),
                                   sheet(2, template: "lacrosse-goalie"), sheet(3, template: "lacrosse-goalie"), sheet(4, template: "hockey-goalie")],
                          gameLogs: (1...4).map { log($0, sheet: $0) },
                          sports: ["lacrosse-goalie": "lacrosse", "hockey-goalie": "hockey"])
    }()

    @Test func anAthleteOfTwoSportsHasTwoSectionsAndSeasonsSplitByTheSchoolYear() throws {
        let athletes = Self.twoSports.athleteSeasons
        #expect(athletes.map(\.sport) == ["lacrosse", "hockey"])
        #expect(athletes[0].seasonNames == ["2024-25", "2025-26"])
        #expect(athletes[0].games.map(\.id) == [1, 2, 3])
        #expect(athletes[0].boundaries.map(\.index) == [1])
        #expect(athletes[1].games.map(\.id) == [4])
        let html = ReportPage.render(Self.twoSports)
        #expect(html.contains("<h2>Lacrosse</h2>") && html.contains("<h2>Hockey</h2>"))
        #expect(P.count("<article class=\"athlete\"", in: html) == 2)
        // The season-to-date line starts again with the new season.
        let toDate = athletes[0].seasonToDate.map { $0 ?? -1 }
        #expect(toDate[0] == 75 && toDate[1] == 100 && abs(toDate[2] - 25.0 / 30 * 100) < 1e-9)
        // A game approved over a failing rule is marked, and only the file's name is shown, never its folders.
        #expect(html.contains("approved over: Q1 does not add up"))
        #expect(html.contains("sheet-1.jpg") && !html.contains("/club/scans/"))
    }

    @Test func theSeasonSwitchIsCSSWithAKeyPerSeason() {
        let html = ReportPage.render(Self.twoSports)
        #expect(html.contains("id=\"season-s0\"") && html.contains("id=\"season-s1\"") && !html.contains("id=\"season-s2\""))
        #expect(html.contains("body:has(#season-s1:checked) [data-season]:not([data-season=\"s1\"])"))
        #expect(html.contains("body:has(#show-club:checked) [data-ctx]:not([data-ctx~=\"club\"]){display:none}"))
        #expect(P.count("<script", in: html) == 0)
    }

    @Test func aClubsSeasonWindowNamesItsGames() throws {
        let file = Data(#"{"seasons": [{"sport": "lacrosse", "name": "Spring 2026", "from": "2026-02-01", "to": "2026-06-30"}]}"#.utf8)
        let calendar = try SeasonCalendar.load(file, file: "seasons.json")
        #expect(calendar.season(sport: "lacrosse", date: "2026-03-14") == "Spring 2026")
        #expect(calendar.season(sport: "hockey", date: "2026-03-14") == "2025-26")
        #expect(calendar.season(sport: "lacrosse", date: "2026-08-01") == "2026-27")
        #expect(calendar.season(sport: "lacrosse", date: nil) == "no date")
        #expect(throws: SeasonCalendar.Invalid.self) {
            try SeasonCalendar.load(Data(#"{"seasons": [{"name": "x", "from": "2026-07-01", "to": "2026-02-01"}]}"#.utf8), file: "s.json")
        }
    }

    /// 36 of 40 against 20 of 40: a gap of 40 points no chance explains. 9 of 10 against 7 of 10: one the counts do.
    @Test func anInsightForARealGapAndNoneForAGapTheCountsExplain() {
        func game(_ id: Int64, _ p1: (Int, Int), _ p4: (Int, Int)) -> GoalieGameLog {
            P.game(id, shots: p1.0 + p4.0, saves: p1.1 + p4.1, periods: ["p1": GoalieStats(shots: p1.0, saves: p1.1, goalsAllowed: p1.0 - p1.1),
                                                                         "p4": GoalieStats(shots: p4.0, saves: p4.1, goalsAllowed: p4.0 - p4.1)])
        }
        let real = AthleteSeason(name: "A", games: (0..<4).map { game(Int64($0), (10, 9), (10, 5)) })
        let insights = real.insights
        #expect(insights.count == 1)
        #expect(insights.first?.sentence == "Saves 90% in the 1st (36 of 40 shots) against 50% in the 4th (20 of 40) over 4 games")
        #expect((insights.first?.p ?? 1) < 0.001)

        let chance = AthleteSeason(name: "B", games: (0..<3).map { game(Int64($0), (10, 9), (10, 7)) })
        #expect(chance.insights.isEmpty, "27 of 30 against 21 of 30 is within what 60 shots allow after the correction")
        #expect(Fisher.twoSided(27, 3, 21, 9) > 0.05)
        let oneGame = AthleteSeason(name: "C", games: [game(1, (20, 19), (20, 6))])
        #expect(oneGame.insights.isEmpty, "one game's gap is that game's")
        #expect(Fisher.twoSided(9, 1, 7, 3) > 0.5)
    }

    /// Fisher's exact test against values worked out by hand (R's fisher.test gives the same).
    @Test func fishersTestMatchesKnownValues() {
        #expect(abs(Fisher.twoSided(1, 9, 11, 3) - 0.002759) < 1e-5)
        #expect(abs(Fisher.twoSided(3, 1, 1, 3) - 0.485714) < 1e-5)
        #expect(Fisher.twoSided(5, 5, 5, 5) == 1)
    }

    @Test func flagsAreCountedByWhatRaisedThemAndConfirmationsAreNotChanges() {
        var newName = FieldReading(value: .string("Jonh"), text: "Jonh", confidence: 90, flagged: true,
                                   doubts: [.unknownName(kind: .athlete, known: 3, nearest: "John", nearestProbability: 0.4)])
        newName.inkConfidence = 90
        let flagged = [P.flagged("a", 12), P.flagged("b", 69, [.inFailingRule("q2.balance")], alone: 97),
                       FlaggedReading(sheetID: 2, field: "athlete", reading: newName)]
        let reading = FieldReading(value: .integer(4), text: "4", confidence: 30)
        let corrections = [Correction(id: 1, sheetID: 1, field: "q1.shots", original: reading, newValue: .integer(4), reviewer: "ann", at: P.now),
                           Correction(id: 2, sheetID: 1, field: "q2.shots", original: reading, newValue: .integer(5), reviewer: "ann", at: P.now)]
        let data = P.data([], flagged: flagged, corrections: corrections)
        let state = StoreState(data)
        #expect(state.trustCauses.map(\.fields) == [1, 1, 1])
        #expect((state.valuesChanged, state.valuesConfirmed) == (1, 1))
        let html = ReportPage.render(data)
        #expect(html.contains("1 the reader&#39;s doubt, 1 the sums, 1 a new name or number"))
        #expect(!html.contains("under the confidence threshold"))
        #expect(html.contains(">confirmed</td>") && html.contains(">changed</td>"))
    }

    /// The same reading, sure in its ink at 75 and doubted by the sums to 65, is the sums' doubt on a sheet read
    /// at the line 70 and the reader's on a sheet read at 80: each field counts against its own sheet's line.
    @Test func eachFlagCountsAgainstTheLineItsSheetWasReadWith() {
        var strict = Self.sheet(1, template: "lacrosse-goalie")
        strict.reviewLine = 80
        let older = Self.sheet(2, template: "lacrosse-goalie")
        var reading = FieldReading(value: .integer(1), text: "1", confidence: 65, flagged: true)
        reading.inkConfidence = 75
        let data = P.data([], sheets: [strict, older], flagged: [FlaggedReading(sheetID: 1, field: "q1.shots", reading: reading),
                                                               FlaggedReading(sheetID: 2, field: "q1.shots", reading: reading)])
        let state = StoreState(data)
        #expect(Dictionary(uniqueKeysWithValues: state.trustCauses.map { ($0.cause, $0.fields) }) == [.reader: 1, .rule: 1, .newName: 0])
        let html = ReportPage.render(data)
        #expect(html.contains("the review line each sheet was read with: 70, 80."), "\(html)")
        #expect(html.contains("1 sheet was stored before the line was kept"))
    }

    @Test func aWaitingSheetSaysWhichRuleItFails() {
        let failing = SheetSummary(id: 2, sha256: "d", path: "/x/b.jpg", templateID: "lacrosse-goalie", templateVersion: 1, status: .needsReview,
                                   scannedAt: P.now, alignmentQuality: 0.9, flaggedFields: 2,
                                   ruleFailures: [RuleFailure(rule: "q2.balance", message: "Q2: saves + goals must equal shots", detail: "", fields: [])])
        let html = ReportPage.render(P.data([], sheets: [failing], logs: [
            GameLogSummary(id: 5, sheetID: 2, role: "goalie", athlete: "Quinn", date: nil, opponent: nil, context: nil, approvedAt: nil,
                           approvedBy: nil, duplicateOf: nil, pendingReason: "the sheet needs review")]))
        #expect(html.contains("the sheet needs review; fails q2.balance: Q2: saves + goals must equal shots; 2 fields flagged"))
    }

    @Test func bidiOverridesAreWrittenAsEscapes() {
        let html = ReportPage.render(P.data([P.game(1, athlete: "Evil\u{202E}gnp.exe")]))
        #expect(!html.contains("\u{202E}"))
        #expect(html.contains("Evil\\u{202E}gnp.exe") || html.contains("Evil\\u{202e}gnp.exe"))
    }

    @Test func anUnknownNameNamesTheNearestKnownOnes() {
        let error = UnknownName(kind: "athlete", name: "Quin Walkr", known: ["Quinn Walker", "Sam Ortiz", "Quinn Walters", "Al"])
        #expect(error.nearest == ["Quinn Walker", "Quinn Walters", "Al"])
        #expect(error.description.hasPrefix("no athlete named Quin Walkr in the store; nearest: Quinn Walker"))
    }
}
