import Foundation
import Testing
@testable import SheetModel

/// The prior over a game's day, and a handwritten date weighed by it.
@Suite struct SeasonPriorTests {
    let today = RuleEvaluator.parseDate("2026-11-23")!
    /// A fall season of eight games, all in high-school context.
    var fall: [GameDay] {
        ["2026-09-05", "2026-09-12", "2026-09-19", "2026-09-26", "2026-10-03", "2026-10-10", "2026-10-17", "2026-10-24"]
            .map { GameDay(date: $0, context: "high_school") }
    }
    var season: SeasonPrior { SeasonPrior(today: today, games: fall) }

    @Test func inSeasonOverOffSeasonOverYearsBackAndTheFutureNever() {
        let p = season
        let inSeason = p.weight("2026-10-06", context: "high_school")
        let widened = p.weight("2026-11-10", context: "high_school")      // 17 days after the last game
        let offSeason = p.weight("2026-04-06", context: "high_school")
        let yearsBack = p.weight("2023-10-06", context: "high_school")
        #expect(inSeason > 10 * offSeason, "eight games make their span far likelier than the rest of the two years")
        #expect(abs(widened - inSeason) <= 1e-12 * inSeason)
        #expect(offSeason > 100 * yearsBack)
        #expect(yearsBack > 0, "an old sheet typed up is unlikely, not impossible")
        #expect(p.weight("2026-11-24", context: nil) > 0, "the not-future rule's day of slack")
        #expect(p.weight("2026-11-26", context: nil) == 0)
        #expect(p.weight("2026-02-30", context: nil) == 0, "no such day")
        #expect(p.place("2026-10-06") == .season && p.place("2026-04-06") == .window && p.place("2023-10-06") == .older
                && p.place("2026-12-01") == .future)
        #expect(abs(p.largestWeight - inSeason) <= 1e-12 * inSeason)
    }

    @Test func withNoGamesEveryDayOfTheTwoYearsIsAlike() {
        let p = SeasonPrior(today: today)
        #expect(p.weight("2024-11-23", context: nil) == p.weight("2026-11-23", context: nil))
        #expect(abs(p.weight("2025-06-01", context: nil) - p.largestWeight) <= 1e-12 * p.largestWeight)
        #expect(p.weight("2024-11-22", context: nil) < p.largestWeight / 1000)
    }

    @Test func moreGamesMakeTheSeasonSurerOneGameSaysNothing() {
        let one = SeasonPrior(today: today, games: [fall[0]])
        #expect(one.weight("2026-09-06", context: "club") == one.weight("2026-04-06", context: "club"), "q = 2 / (1 + 1) = 1")
        let two = SeasonPrior(today: today, games: Array(fall.prefix(2)))
        let eight = season
        func ratio(_ p: SeasonPrior) -> Double { p.weight("2026-09-08", context: "club") / p.weight("2026-04-06", context: "club") }
        #expect(ratio(eight) > ratio(two) && ratio(two) > 1)
    }

    @Test func anotherGameThatDayInTheSameContextIsUnlikelyInAnotherNot() {
        let p = season
        let free = p.weight("2026-10-04", context: "high_school")
        #expect(p.weight("2026-10-03", context: "high_school") == free * p.sameDay)
        #expect(p.weight("2026-10-03", context: nil) == free * p.sameDay, "a context not read is not known to differ")
        #expect(p.weight("2026-10-03", context: "club") == free)
        // The club's games: another athlete's game that day is no reason for doubt.
        let club = SeasonPrior(today: today, games: fall, penalisesSameDay: false)
        #expect(club.weight("2026-10-03", context: "high_school") == club.weight("2026-10-04", context: "high_school"))
    }

    @Test func theStoresGamesAreTheAthletesWhenReadTheClubsOtherwise() {
        let games = SeasonGames([("Zoë Fernández", GameDay(date: "2026-10-03")), ("Sam Okafor", GameDay(date: "2026-03-07"))])
        let own = games.prior(today: today, athlete: "ZOË  FERNÁNDEZ")
        #expect(own.games == [GameDay(date: "2026-10-03")] && own.penalisesSameDay)
        for athlete in [nil, "Quinn Walker"] {
            let club = games.prior(today: today, athlete: athlete)
            #expect(Set(club.games) == [GameDay(date: "2026-10-03"), GameDay(date: "2026-03-07")] && !club.penalisesSameDay)
        }
        #expect(SeasonGames().prior(today: today, athlete: "Sam Okafor").games.isEmpty)
    }

    // MARK: The posterior

    func reading(_ options: [(String, Double)]) -> FieldReading {
        var reading = FieldReading(value: .string(options[0].0), text: "", confidence: 100 * options[0].1)
        reading.alternatives = options.map { Alternative(value: .string($0.0), probability: $0.1) }
        return reading
    }
    let flagging = Flagging(line: 70)

    @Test func aSureDateInSeasonStaysSure() {
        let weighed = flagging.flag(season.weigh(reading([("2026-10-06", 0.995), ("2026-10-08", 0.004)]), context: "high_school"), failingRules: [])
        #expect(weighed.value == .string("2026-10-06") && weighed.inkValue == nil)
        #expect(weighed.confidence > 99 && !weighed.flagged)
    }

    @Test func inkTornBetweenTwoDaysOfTheSeasonIsFlaggedNotGuessed() {
        // A 3 or an 8, both in season: the prior cannot tell them apart, so a person must.
        let weighed = flagging.flag(season.weigh(reading([("2026-10-13", 0.62), ("2026-10-18", 0.36)]), context: "high_school"), failingRules: [])
        #expect(weighed.value == .string("2026-10-13"))
        #expect(weighed.confidence < 70 && weighed.flagged)
        #expect(abs((weighed.inkConfidence ?? 0) - 62) < 1e-9)
    }

    @Test func aDayInSeasonBeatsTheInksOffSeasonFirstChoiceButIsFlagged() {
        // 09 read as 03 (a sheet of the MNIST-writer set): the season prefers September, and the value shown is
        // not the ink's, so a person confirms it.
        let weighed = flagging.flag(season.weigh(reading([("2026-03-30", 0.6), ("2026-09-30", 0.35)]), context: "high_school"), failingRules: [])
        #expect(weighed.value == .string("2026-09-30") && weighed.inkValue == .string("2026-03-30"))
        #expect(weighed.flagged)
        // With no season known, the ink's choice stands, and is doubted as its ink is.
        let alone = flagging.flag(SeasonPrior(today: today).weigh(reading([("2026-03-30", 0.6), ("2026-09-30", 0.35)]), context: nil), failingRules: [])
        #expect(alone.value == .string("2026-03-30") && alone.inkValue == nil && alone.flagged)
    }

    @Test func aSureDateYearsBackOrOnAnotherGamesDayGoesToAPerson() {
        // "26" read as a sure "16": the same day this season, which the ink hesitated over, is shown, for a person to confirm.
        let hesitant = flagging.flag(season.weigh(reading([("2016-10-06", 0.99), ("2026-10-06", 0.008)]), context: "high_school"), failingRules: [])
        #expect(hesitant.value == .string("2026-10-06") && hesitant.inkValue == .string("2016-10-06") && hesitant.flagged)
        // Nothing else listed: the old date stays, under the line, saying why.
        let old = flagging.flag(season.weigh(reading([("2016-10-06", 0.99)]), context: "high_school"), failingRules: [])
        #expect(old.value == .string("2016-10-06") && old.confidence < 70 && old.flagged)
        #expect(old.doubts.contains(.outsideGameDates(date: "2016-10-06", afterToday: false, yearsBack: 2)))
        let again = flagging.flag(season.weigh(reading([("2026-10-03", 0.97), ("2026-10-08", 0.02)]), context: "high_school"), failingRules: [])
        #expect(again.flagged && again.confidence < 70)
        let club = flagging.flag(season.weigh(reading([("2026-10-03", 0.97), ("2026-10-08", 0.02)]), context: "club"), failingRules: [])
        #expect(!club.flagged && club.value == .string("2026-10-03"))
    }

    @Test func theUnlistedMassKeepsAListedDateFromLookingSurerThanItsInk() {
        // Ink that left a third of its mass unlisted: whatever the prior, the date is no surer than 2 in 3.
        let weighed = season.weigh(reading([("2026-10-06", 0.66)]), context: "high_school")
        #expect(weighed.confidence <= 66 + 1e-9)
        // A doubt's cap on the value read (a wide mark) stays a cap on its ink.
        var capped = reading([("2026-10-06", 0.99)])
        capped.doubt(.wideMark)
        #expect(season.weigh(capped, context: "high_school").confidence <= 60 + 1e-9)
    }

    // MARK: The ink read with the calendar

    /// Characters each sure of one digit (or of no digit, "-"), with `unsure` replacing some: position → probabilities.
    func ink(_ digits: String, unsure: [Int: [Int: Double]] = [:]) -> DateInk {
        DateInk(characters: digits.enumerated().map { k, c in
            var p = [Double](repeating: 0, count: 11)
            if let spread = unsure[k] { for (cls, q) in spread { p[cls] = q } } else { p[c.wholeNumberValue ?? DateInk.noDigit] = 1 }
            return p
        })
    }

    /// The reading the digit reader gives with that ink: its likeliest date, at that date's probability.
    func asRead(_ date: String, _ probability: Double) -> FieldReading {
        var reading = FieldReading(value: .string(date), text: "", confidence: 100 * probability)
        reading.alternatives = [Alternative(value: .string(date), probability: probability)]
        return reading
    }

    @Test func aMonthTheCalendarLacksIsNoDoubtAboutTheDate() {
        // A month's 1 the network gave 0.6 beside a 7 at 0.4: month 70 is none, so the date is 10-06.
        let torn = ink("100626", unsure: [0: [1: 0.6, 7: 0.4]])
        let listed = SeasonPrior(today: today).weigh(asRead("2026-10-06", 0.6), context: nil)
        #expect(listed.confidence <= 60 + 1e-9, "read from the reader's list, the 7's mass stays doubt")
        let joint = flagging.flag(SeasonPrior(today: today).weigh(asRead("2026-10-06", 0.6), ink: torn, context: nil), failingRules: [])
        #expect(joint.value == .string("2026-10-06") && joint.inkValue == nil)
        #expect(joint.confidence > 99 && !joint.flagged)
        // A day its month lacks likewise: April has no 31st, so a 3 or a 2 there is a 2; March has both days.
        let april = SeasonPrior(today: today).weigh(asRead("2026-04-21", 0.5), ink: ink("043126", unsure: [2: [3: 0.5, 2: 0.5]]), context: nil)
        #expect(april.value == .string("2026-04-21") && april.confidence > 99)
        let march = SeasonPrior(today: today).weigh(asRead("2026-03-31", 0.5), ink: ink("033126", unsure: [2: [3: 0.5, 2: 0.5]]), context: nil)
        #expect(march.confidence < 51)
    }

    @Test func theYearIsReadWithTheWindowAndNeverInTheFuture() {
        // A year's last digit torn between 7 (2027, after the scan) and 6: the future is no day a game was played.
        let future = SeasonPrior(today: today).weigh(asRead("2027-10-06", 0.7), ink: ink("100627", unsure: [5: [7: 0.7, 6: 0.3]]), context: nil)
        #expect(future.value == .string("2026-10-06") && future.inkValue == nil && future.confidence > 99)
        // Torn between 3 (2023, before the two years) and 5: the window chooses 2025, and a person confirms it.
        let old = flagging.flag(SeasonPrior(today: today).weigh(asRead("2023-10-06", 0.6), ink: ink("100623", unsure: [5: [3: 0.6, 5: 0.4]]),
                                                                context: nil), failingRules: [])
        #expect(old.value == .string("2025-10-06") && old.inkValue == .string("2023-10-06") && old.flagged)
        // With a season stored, a 5 or a 6 in the year is the season's year.
        let fall = season.weigh(asRead("2025-10-06", 0.55), ink: ink("100625", unsure: [5: [5: 0.55, 6: 0.45]]), context: "club")
        #expect(fall.value == .string("2026-10-06") && fall.inkValue == .string("2025-10-06"))
    }

    @Test func aMarkThatIsNoDigitIsNoDoubtAnotherDoubtStaysACap() {
        // Seven characters, the last a dash read as no digit and doubted as a small mark: the date is what the six say.
        var dashed = asRead("2026-10-06", 0.99)
        dashed.doubt(.smallMark)
        let weighed = SeasonPrior(today: today).weigh(dashed, ink: ink("100626-"), context: nil)
        #expect(weighed.value == .string("2026-10-06") && weighed.confidence > 99)
        var wide = asRead("2026-10-06", 0.99)
        wide.doubt(.wideMark)
        #expect(SeasonPrior(today: today).weigh(wide, ink: ink("100626"), context: nil).confidence <= 60 + 1e-9)
        // Fewer than six characters: no date of six digits to weigh, so the reader's list is weighed.
        let short = SeasonPrior(today: today).weigh(asRead("2026-10-06", 0.9), ink: ink("10062"), context: nil)
        #expect(abs(short.confidence - SeasonPrior(today: today).weigh(asRead("2026-10-06", 0.9), context: nil).confidence) < 1e-9)
    }

    @Test func theInksLikelihoodReadsEachCharacterAsADigitOrNoDigit() {
        let dashed = ink("10-0626", unsure: [2: [DateInk.noDigit: 0.8, 1: 0.2]])
        #expect(abs(dashed.likelihood([1, 0, 0, 6, 2, 6], floor: 0) - 0.8) < 1e-12)
        #expect(dashed.likelihood([1, 0, 1, 0, 6, 2], floor: 0) == 0, "the last 6 is sure of being a digit")
        #expect(dashed.likelihood([1, 0, 0, 6, 2, 7], floor: 0) == 0)
        #expect(dashed.likelihood([1, 0, 0, 6, 2, 7], floor: 1e-4) > 0, "a sure character is sometimes a misread")
    }
}
