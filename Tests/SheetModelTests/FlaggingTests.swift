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
}
