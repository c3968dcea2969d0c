import SheetModel
import Testing
@testable import SheetPipeline

@Suite struct DigitCombinationTests {
    /// Probabilities over the 11 classes with the given masses, the rest spread evenly.
    static func box(_ masses: [Int: Double]) -> [Double] {
        let rest = (1 - masses.values.reduce(0, +)) / Double(11 - masses.count)
        return (0..<11).map { masses[$0] ?? rest }
    }

    @Test func mostProbableReadingIsTheProductOfItsBoxes() {
        let boxes = [Self.box([1: 0.9, 7: 0.08]), Self.box([7: 0.81, 1: 0.12])]
        let candidates = DigitCombination.candidates(boxes)
        #expect(candidates.first?.digits == "17")
        #expect(abs(candidates[0].probability - 0.9 * 0.81) < 1e-9)
        #expect(candidates[1].digits == "11")
        #expect(abs(candidates[1].probability - 0.9 * 0.12) < 1e-9)
        #expect(candidates.count == 5)
    }

    @Test func leadingZeroAndStrayMarkMergeIntoOneCount() {
        // Left box: "0" or a stray mark; right box: surely a 7. Both readings mean 7.
        let boxes = [Self.box([0: 0.5, 10: 0.45]), Self.box([7: 0.98])]
        let values = DigitCombination.values(DigitCombination.candidates(boxes), kind: .count)
        #expect(values.first?.value == .integer(7))
        #expect(abs(values[0].probability - (0.5 + 0.45) * 0.98) < 1e-9)
    }

    @Test func datesThatDoNotExistAreDropped() {
        let boxes: [[Double]] = "023125".map { Self.box([$0.wholeNumberValue!: 0.9]) }
        let values = DigitCombination.values(DigitCombination.candidates(boxes), kind: .date,
                                             date: PrintedFieldReader.date(fromMMDDYY:))
        // February 31st is no date: every candidate left must be a real one.
        #expect(!values.contains { $0.value == .string("2025-02-31") })
        #expect(values.allSatisfy { if case .string(let s) = $0.value { return s.hasPrefix("20") } else { return false } })
    }

    /// Forty marks in one field (a damaged image's ringing) would be 3⁴⁰ readings: the beam keeps the
    /// best ones only, and the best reading is still each box's likeliest digit.
    @Test(.timeLimit(.minutes(1))) func manyMarksStayBoundedAndKeepTheBestReading() {
        let digits = (0..<40).map { $0 * 7 % 10 }
        let boxes = digits.map { Self.box([$0: 0.7, ($0 + 1) % 10: 0.2]) }
        let candidates = DigitCombination.candidates(boxes, perBox: 3, limit: 8)
        #expect(candidates.count == 8)
        #expect(candidates.first?.digits == digits.map(String.init).joined())
    }

    /// Up to seven boxes nothing is cut: the beam gives what the full product gives.
    @Test func theBeamChangesNothingForFieldsOfUsualWidth() {
        let boxes = (0..<7).map { i in Self.box([i: 0.5, (i + 3) % 10: 0.3, 10: 0.1]) }
        #expect(DigitCombination.candidates(boxes, limit: 20) == DigitCombination.candidates(boxes, limit: 20, beam: .max))
    }

    @Test func onlyStrayMarksGiveNoValue() {
        let values = DigitCombination.values(DigitCombination.candidates([Self.box([10: 0.99])], perBox: 1), kind: .count)
        #expect(values.isEmpty)
    }

    @Test func aRangeKeepsTheValuesItAllowsWithTheirProbabilityGivenTheRange() {
        // A long-flagged 1 read as 7: "72" at 0.6, "12" at 0.3, "22" at 0.05; a quarter allows 0–49.
        let read: [(value: FieldValue, probability: Double)] = [(.integer(72), 0.6), (.integer(12), 0.3), (.integer(22), 0.05), (.empty, 0.01)]
        let inRange = DigitCombination.withinRange(read, 0...49)
        #expect(abs(inRange.outside - 0.6) < 1e-12)
        #expect(inRange.values.map(\.value) == [.integer(12), .integer(22), .empty])
        // Divided by the 0.4 the ink left in the range, listed or not: 0.3 / 0.4, not 0.3 / 0.36.
        #expect(abs(inRange.values[0].probability - 0.75) < 1e-12)
        #expect(abs(inRange.values[1].probability - 0.125) < 1e-12)
    }

    @Test func aRangeChangesNothingWhenTheInkStaysInsideIt() {
        let read: [(value: FieldValue, probability: Double)] = [(.integer(12), 0.9), (.integer(17), 0.05)]
        let inRange = DigitCombination.withinRange(read, 0...49)
        #expect(inRange.outside == 0)
        #expect(inRange.values.map(\.value) == read.map(\.value))
        #expect(inRange.values.map(\.probability) == read.map(\.probability))
        // Without a range, even 72 stays.
        #expect(DigitCombination.withinRange([(.integer(72), 1)], nil).values.map(\.value) == [.integer(72)])
    }

    @Test func aRangeNothingListedFitsLeavesNoValue() {
        let inRange = DigitCombination.withinRange([(.integer(72), 0.7), (.integer(77), 0.3)], 0...49)
        #expect(inRange.values.isEmpty)
        #expect(abs(inRange.outside - 1) < 1e-12)
    }
}
