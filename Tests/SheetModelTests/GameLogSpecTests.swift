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
}
