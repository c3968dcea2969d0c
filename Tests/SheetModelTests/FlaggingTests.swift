import Testing
@testable import SheetModel

/// The one line that sends a field to a person.
@Suite struct FlaggingTests {
    let flagging = Flagging(line: 70)

    @Test func aSureReadingOfTheInkPassesAndOneUnderTheLineIsFlaggedWithWhy() {
        let sure = flagging.flag(FieldReading(value: .integer(7), text: "7", confidence: 99), failingRules: [])
        #expect(!sure.flagged && sure.doubts.isEmpty)
        let unsure = flagging.flag(FieldReading(value: .integer(7), text: "7", confidence: 69.9), failingRules: [])
        #expect(unsure.flagged && unsure.doubts == [.underTheLine(70)])
    }

    /// A value the rules chose over the ink's first choice waits for a person however sure the rules are.
    @Test func aValueNotTheInksIsFlaggedHoweverSure() {
        var fromSums = FieldReading(value: .integer(7), text: "1", confidence: 99.9)
        fromSums.inkValue = .integer(1)
        #expect(flagging.flag(fromSums, failingRules: []).flagged)
    }

    /// A rule the values shown break flags its numbers, named, and the line's doubt is not added on top.
    @Test func aFailingRuleFlagsItsFieldsByName() {
        let read = flagging.flag(FieldReading(value: .integer(7), text: "7", confidence: 40), failingRules: ["total.shots"])
        #expect(read.flagged && read.doubts == [.inFailingRule("total.shots")])
    }

    @Test func aStruckOutNumberWaitsForAPersonAtAnyConfidence() {
        let struck = flagging.flag(FieldReading(value: .integer(7), text: "7", confidence: 99, doubts: [.struckOutCorrection]), failingRules: [])
        #expect(struck.flagged)
    }

    /// The stages before the check only say why (a doubt); the check decides. Handwriting no rule checks, held under
    /// its own line, and a name the club does not know are flagged at any confidence and review line, and the
    /// doubt that is their own line is reason enough: the review line is not named beside it.
    @Test func aDoubtThatIsItsOwnLineIsFlaggedHereWithoutTheReviewLineBesideIt() {
        let date = FieldReading(value: .string("2026-10-06"), text: "100626", confidence: 69, doubts: [.uncheckedHandwriting(.date)])
        #expect(!date.flagged)
        let flagged = flagging.flag(date, failingRules: [])
        #expect(flagged.flagged && flagged.doubts == [.uncheckedHandwriting(.date)])
        #expect(Flagging(line: 60).flag(date, failingRules: []).flagged, "under its own line, whatever the review line")
        let new = FieldReading(value: .string("Emerson Kely"), text: "Emerson Kely", confidence: 95,
                               doubts: [.unknownName(kind: .athlete, known: 12, nearest: "Emerson Kelly", nearestProbability: 0.3)])
        #expect(flagging.flag(new, failingRules: []).flagged)
        // A doubt that needs a person but is no line of its own still has the review line named when under it.
        let struck = flagging.flag(FieldReading(value: .integer(7), text: "7", confidence: 60, doubts: [.struckOutCorrection]), failingRules: [])
        #expect(struck.flagged && struck.doubts == [.struckOutCorrection, .underTheLine(70)])
    }
}
