import Foundation
import Testing
@testable import SheetModel

/// The window of days a game's sheet is read in, and how it weighs a date's readings.
@Suite struct GameDateWindowTests {
    let window = GameDateWindow(today: RuleEvaluator.parseDate("2026-11-22")!)

    @Test func theWindowRunsFromTwoYearsBeforeTheScanToTheDayAfter() {
        #expect(window.contains("2024-11-22"))
        #expect(!window.contains("2024-11-21"))
        #expect(window.contains("2026-11-23"), "a day's slack, as the not-future rule gives")
        #expect(!window.contains("2026-11-24"))
        #expect(!window.contains("2026-02-30"), "no such day")
        #expect(window.outsideAfterToday("2026-08-01") == nil)
        #expect(window.outsideAfterToday("2016-08-01") == false)
        #expect(window.outsideAfterToday("2029-08-01") == true)
    }

    @Test func aDateYearsBackLosesToTheSameDayThisSeasonWhenTheInkHesitates() throws {
        // A 26 whose 2 was left open: 2016 at 0.586, 2026 at 0.367 (a sheet of the hand-filled sets).
        let weighed = window.weigh([(.string("2016-02-04"), 0.586), (.string("2026-02-04"), 0.367), (.string("2016-01-04"), 0.015)])
        #expect(weighed.map(\.value) == [.string("2026-02-04"), .string("2016-02-04"), .string("2016-01-04")])
        // 0.367 / (0.367 + 0.05 × 0.601 + the 0.032 unlisted, taken as inside)
        #expect(abs(weighed[0].probability - 0.367 / (0.367 + 0.05 * 0.601 + 0.032)) < 1e-9)
    }

    @Test func sureInkKeepsAnOldDateFirstButLessSure() throws {
        let weighed = window.weigh([(.string("2016-08-01"), 0.904), (.string("2026-08-01"), 0.032), (.string("2016-09-01"), 0.016)])
        #expect(weighed.first?.value == .string("2016-08-01"))
        #expect(try #require(weighed.first).probability < 0.5)
        // Very sure ink stays sure: an old sheet typed up from a clear hand.
        let clear = window.weigh([(.string("2016-08-01"), 0.9995), (.string("2026-08-01"), 0.0004)])
        #expect(clear.first?.value == .string("2016-08-01"))
        #expect(try #require(clear.first).probability > 0.95)
    }

    @Test func theWindowNeverMakesADateSurerThanItsInkWhenAllListedLieInside() {
        let inside: [(value: FieldValue, probability: Double)] = [(.string("2026-08-01"), 0.7), (.string("2026-09-01"), 0.2)]
        let weighed = window.weigh(inside)
        #expect(weighed.map(\.value) == inside.map(\.value))
        #expect(zip(weighed, inside).allSatisfy { abs($0.probability - $1.probability) < 1e-12 })
    }

    @Test func theScanDayMovesTheWindow() {
        let old = GameDateWindow(today: RuleEvaluator.parseDate("2016-12-01")!)
        let weighed = old.weigh([(.string("2016-08-01"), 0.6), (.string("2026-08-01"), 0.35)])
        #expect(weighed.first?.value == .string("2016-08-01"))
        #expect(old.outsideAfterToday("2026-08-01") == true)
    }
}
