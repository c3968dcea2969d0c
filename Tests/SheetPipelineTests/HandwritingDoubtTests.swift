import Testing
@testable import SheetModel
@testable import SheetPipeline

/// What a handwritten reading no sum checks must reach to pass unflagged.
@Suite struct HandwritingDoubtTests {
    /// A handwritten date under 80 is flagged and held under the review line, with the reason; one at 80
    /// or more, and an empty date (which `date.present` flags), are left as read.
    @Test func aHandwrittenDateUnder80IsHeldUnderTheLine() {
        var doubtful = FieldReading(value: .string("2025-10-24"), text: "102425", confidence: 77)
        SheetFieldReader.handDate.apply(to: &doubtful)
        #expect(doubtful.flagged && doubtful.confidence == 69)
        #expect(doubtful.notes == ["a handwritten date under 80% sure is right about 19 times in 20"])

        let sure = FieldReading(value: .string("2025-10-24"), text: "102425", confidence: 86)
        var kept = sure
        SheetFieldReader.handDate.apply(to: &kept)
        #expect(kept == sure)

        let empty = FieldReading(value: .empty, text: "", confidence: 40)
        var blank = empty
        SheetFieldReader.handDate.apply(to: &blank)
        #expect(blank == empty)
    }
}
