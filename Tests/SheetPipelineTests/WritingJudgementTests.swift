import SheetModel
import Testing
@testable import SheetPipeline

/// A sheet's writing is judged from Tesseract's readings of its numbers; the numbers whose line reading
/// wants a second opinion box by box (a Tesseract call per box) are read only when the others leave the
/// judgement open. That must give the judgement every full reading would.
@Suite struct WritingJudgementTests {
    /// The three ways a number can come out, for the judgement: empty, written and sure, written and unsure.
    static let outcomes = [FieldReading(value: .empty, text: "", confidence: 97),
                           FieldReading(value: .integer(4), text: "4", confidence: 96),
                           FieldReading(value: .integer(4), text: "4", confidence: 40)]

    /// Every way `count` unsettled numbers can come out.
    static func completions(_ count: Int) -> [[FieldReading]] {
        guard count > 0 else { return [[]] }
        return completions(count - 1).flatMap { rest in outcomes.map { rest + [$0] } }
    }

    /// Every sheet of up to 25 sure, 4 unsure and 1 empty settled numbers with up to 4 unsettled ones (whose
    /// outcomes are all tried): where the early judgement decides, every completion agrees; where it leaves the
    /// sheet open, some completions differ.
    @Test func aJudgementMadeEarlyIsTheOneEveryCompletionGives() {
        for sure in 0...25 { for unsure in 0...4 { for empty in 0...1 { for unsettled in 0...4 {
            let settled = Array(repeating: Self.outcomes[1], count: sure) + Array(repeating: Self.outcomes[2], count: unsure)
                + Array(repeating: Self.outcomes[0], count: empty)
            let early = SheetFieldReader.judge(settled, unsettled: unsettled, share: 0.93, confidence: 90)
            let full = Set(Self.completions(unsettled).map { SheetFieldReader.judge(settled + $0, share: 0.93, confidence: 90) })
            if let early {
                #expect(full == [early], "\(sure) sure, \(unsure) unsure, \(unsettled) to read: judged \(early) early, the full readings give \(full)")
            } else {
                #expect(full.count == 2, "\(sure) sure, \(unsure) unsure, \(unsettled) to read: left open although every completion gives \(full)")
            }
        } } } }
    }

    @Test func aSheetOfUnsureNumbersIsHandwrittenWhateverItsSecondOpinionsSay() {
        let unsure = Array(repeating: Self.outcomes[2], count: 20)
        #expect(SheetFieldReader.judge(unsure, unsettled: 6, share: 0.93, confidence: 90) == .hand)
        let sure = Array(repeating: Self.outcomes[1], count: 20)
        // 20 sure of 21 is 95%, print whatever the 21st says; 20 of 22 is 91%, so two can tip it.
        #expect(SheetFieldReader.judge(sure, unsettled: 1, share: 0.93, confidence: 90) == .print)
        #expect(SheetFieldReader.judge(sure, unsettled: 2, share: 0.93, confidence: 90) == nil)
        #expect(SheetFieldReader.judge([], unsettled: 0, share: 0.93, confidence: 90) == .print)
    }
}
