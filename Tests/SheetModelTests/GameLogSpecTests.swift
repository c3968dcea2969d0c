import Foundation
import Testing
@testable import SheetModel

/// The template's `gameLog` section: checked like the rest of the template, and turned into a game log.
@Suite struct GameLogSpecTests {
    static let lacrosse = try! SheetTemplate.decode(TemplateDecodingTests.lacrosseData)

    @Test func lacrosseTemplateMapsEveryPeriodAndStat() throws {
        let spec = try #require(Self.lacrosse.gameLog)
        #expect(spec.role == "goalie")
        #expect(spec.periods.keys.sorted() == ["ot", "p1", "p2", "p3", "p4", "total"])
        #expect(spec.field(period: "p2", stat: "goals_allowed") == "q2.goals")
        #expect(spec.problems(fields: Self.lacrosse.fields).isEmpty)
    }

    /// Mistakes in the section are named like every other template problem.
    @Test func brokenReferencesAreNamed() throws {
        let problems = try TemplateDecodingTests.problems { o in
            o["fields"] = [
                ["id": "who", "kind": "text", "rect": [100, 150, 200, 30]],
                ["id": "h1.shots", "kind": "count", "rect": [100, 200, 60, 30], "combs": 2],
                ["id": "hs", "kind": "checkbox", "rect": [200, 250, 16, 16]],
            ]
            o["gameLog"] = [
                "role": "Goalie", "athlete": "who", "date": "when", "context": ["high school": "hs", "club": "who"],
                "periods": ["p1": "h1", "half2": "h2"], "stats": ["shots": "shots"],
            ]
        }
        #expect(problems == [
            "gameLog.role: 'Goalie' must be lowercase letters, digits and '_'",
            "gameLog.date: unknown field 'when'",
            "gameLog.context.club: field 'who' is a text, not a checkbox",
            "gameLog.context: value 'high school' must be lowercase letters, digits and '_'",
            "gameLog.periods: 'half2' is not one of p1…p9, ot, total",
            "gameLog.periods.half2 × stats.shots: unknown field 'h2.shots'",
        ])
    }

    @Test func draftTakesMetadataFromTheSheetAndFlagsOnlyWhenMissing() throws {
        let spec = try #require(Self.lacrosse.gameLog)
        var values: [String: FieldValue] = ["athlete": .string(" Quinn Walker "), "date": .string("2026-04-11"), "opponent": .empty,
                                            "context.hs": .boolean(false), "context.club": .boolean(true),
                                            "q1.shots": .integer(7), "q1.goals": .integer(1), "ot.shots": .empty]
        let draft = spec.draft(from: values, defaults: GameLogDefaults(athlete: "Ignored", opponent: "Lincoln High", context: "high_school"))
        #expect(draft.athlete == "Quinn Walker")
        #expect(draft.opponent == "Lincoln High")
        #expect(draft.context == "club")
        #expect(draft.conference == nil)
        #expect(draft.givenByFlags == ["opponent"])
        #expect(draft.stats.count == 24)
        #expect(draft.stats.first == PeriodStat(period: "p1", stat: "clears", value: nil))
        #expect(draft.stats.contains(PeriodStat(period: "p1", stat: "goals_allowed", value: 1)))
        #expect(draft.stats.contains(PeriodStat(period: "ot", stat: "shots", value: nil)))
        // Both context boxes marked is no context: the sheet needs review, not a guess.
        values["context.hs"] = .boolean(true)
        #expect(spec.draft(from: values).context == nil)
    }

    // MARK: Box scores (issue 8)

    static let players = PlayerLinesSpec(rows: ["p1", "p2", "p3"], number: "num", name: "name", stats: ["pts": "pts", "tov": "to"])

    /// A row someone wrote in is a line, numbered by its row; a blank row is none; a jersey number
    /// keeps its leading zero; an empty box is nil, not 0.
    @Test func playerLinesComeFromTheRowsWrittenIn() {
        let values: [String: FieldValue] = [
            "p1.num": .string("00"), "p1.name": .string(" Cameron Lee "), "p1.pts": .integer(4), "p1.to": .empty,
            "p2.num": .empty, "p2.name": .empty, "p2.pts": .empty, "p2.to": .empty,
            "p3.num": .integer(7), "p3.pts": .integer(0), "p3.to": .integer(2),
        ]
        #expect(Self.players.lines(from: values) == [
            PlayerLine(line: 1, number: "00", player: "Cameron Lee", stats: [PlayerStat(stat: "pts", value: 4), PlayerStat(stat: "tov", value: nil)]),
            PlayerLine(line: 3, number: "7", player: nil, stats: [PlayerStat(stat: "pts", value: 0), PlayerStat(stat: "tov", value: 2)]),
        ])
    }

    @Test func boxScoreTemplateMakesATeamLogWithPlayerLines() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Templates/basketball-box.json")
        let template = try SheetTemplate.decode(try Data(contentsOf: url))
        let spec = try #require(template.gameLog)
        let values: [String: FieldValue] = ["team": .string("Granite Bay"), "date": .string("2026-02-14"), "opp.score": .integer(51),
                                            "team.pts": .integer(48), "p05.num": .string("12"), "p05.to": .integer(3)]
        let draft = spec.draft(from: values)
        #expect(draft.role == "team" && draft.athlete == "Granite Bay")
        #expect(draft.stats.contains(PeriodStat(period: "total", stat: "pts", value: 48)))
        #expect(draft.stats.contains(PeriodStat(period: "total", stat: "opponent_points", value: 51)))
        #expect(draft.players.map(\.line) == [5])
        #expect(draft.players.first?.value("tov") == 3, "stored as tov, read from the TO column")
    }

    @Test func brokenPlayerSectionsAreNamed() throws {
        let problems = try TemplateDecodingTests.problems { o in
            o["fields"] = [
                ["id": "who", "kind": "text", "rect": [100, 150, 200, 30]],
                ["id": "day", "kind": "date", "rect": [320, 150, 120, 30], "combs": 6],
                ["id": "t.pts", "kind": "count", "rect": [100, 200, 60, 30], "combs": 2],
                ["id": "r1.pts", "kind": "count", "rect": [100, 250, 60, 30], "combs": 2],
                ["id": "r1.name", "kind": "checkbox", "rect": [200, 250, 16, 16]],
            ]
            o["gameLog"] = [
                "role": "team", "athlete": "who", "date": "day", "periods": ["total": "t"], "stats": ["pts": "pts"],
                "totals": ["pts": "t.pts", "Opp": "who"],
                "players": ["rows": ["r1", "r2"], "name": "name", "stats": ["pts": "pts"]],
            ]
        }
        #expect(problems == [
            "gameLog.totals: 'Opp' must be lowercase letters, digits and '_'",
            "gameLog.totals.Opp: field 'who' is a text, not a count",
            "gameLog.totals: 'pts' is already the total row's pts",
            "gameLog.players.name (r1): field 'r1.name' is a checkbox, not a text",
            "gameLog.players.name (r2): unknown field 'r2.name'",
            "gameLog.players.stats.pts (r2): unknown field 'r2.pts'",
        ])
    }
}
