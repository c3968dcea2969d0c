import Foundation
import Testing
@testable import DigitNet

/// The mixture of the network's probabilities with the votes of a store's labelled digits: what it may
/// and may not do, whatever the examples say.
@Suite struct DigitAdaptationTests {
    /// An embedding of width 8 pointing mostly along `axis`, a little along `tilt`.
    static func embedding(_ axis: Int, tilt: Int = 7, by amount: Float = 0.1) -> [Float] {
        var e = [Float](repeating: 0, count: 8)
        e[axis] = 1
        e[tilt] += amount
        return e
    }

    /// Probabilities that put `p` on `digit`, the rest on `other`.
    static func probabilities(_ digit: Int, _ p: Double, other: Int, none: Double = 0) -> [Double] {
        var out = [Double](repeating: 0, count: DigitNetwork.classes)
        out[digit] = p
        out[other] = 1 - p - none
        out[DigitNetwork.noneClass] = none
        return out
    }

    @Test func withoutExamplesTheNetworkDecidesAlone() {
        let p = Self.probabilities(3, 0.6, other: 8)
        #expect(DigitAdaptation(examples: [], width: 8).adjust(p, embedding: Self.embedding(0)) == p)
        let other = DigitAdaptation(examples: [(digit: 3, embedding: [1, 2, 3])], width: 8)
        #expect(other.count == 0, "an embedding of another width is no example")
        #expect(other.adjust(p, embedding: Self.embedding(0)) == p)
    }

    @Test func consistentNeighboursSettleADigitTheNetworkHesitatedOn() {
        // The network half reads this writer's 7 as a 1; five 7s of the same hand were labelled.
        let adaptation = DigitAdaptation(examples: (0..<5).map { _ in (digit: 7, embedding: Self.embedding(2)) } + [(digit: 1, embedding: Self.embedding(5))], width: 8)
        let adjusted = adaptation.adjust(Self.probabilities(1, 0.5, other: 7), embedding: Self.embedding(2, by: 0.12))
        #expect(adjusted[7] > 0.7, "\(adjusted)")
        #expect(abs(adjusted.reduce(0, +) - 1) < 1e-9)
    }

    @Test(arguments: [Float(0), 0.1, 0.3])
    func oneLabelTypedWrongNeverMakesAnotherValueSureOfASureReading(_ tilt: Float) {
        // A label that says 8 where the network is sure of 3, however close its ink (0.1: the very same), among
        // labels of other inks: the 8 stays under the line.
        let adaptation = DigitAdaptation(examples: [(digit: 8, embedding: Self.embedding(4))] + (0..<20).map { _ in (digit: 5, embedding: Self.embedding(1)) }, width: 8)
        let adjusted = adaptation.adjust(Self.probabilities(3, 0.99, other: 5), embedding: Self.embedding(4, by: tilt))
        #expect(adjusted.indices.filter { $0 != 3 }.allSatisfy { adjusted[$0] < 0.7 }, "\(adjusted)")
        #expect(adjusted[8] <= adaptation.labelShare + 1e-9)
    }

    @Test func agreeingLabelsOfOneInkSettleADigitTheNetworkMisreadsSurely() {
        // A keeper's 5 that the network reads as a sure 3: one label cannot make it a sure 5, four can.
        let p = Self.probabilities(3, 0.98, other: 5)
        let one = DigitAdaptation(examples: [(digit: 5, embedding: Self.embedding(2))], width: 8)
        let four = DigitAdaptation(examples: (0..<4).map { _ in (digit: 5, embedding: Self.embedding(2)) }, width: 8)
        #expect(one.adjust(p, embedding: Self.embedding(2, by: 0.12))[5] < 0.7)
        #expect(four.adjust(p, embedding: Self.embedding(2, by: 0.12))[5] > 0.9)
        // Four labels of the ink, one of them typed wrong: the three that agree still decide.
        let slip = DigitAdaptation(examples: [(digit: 8, embedding: Self.embedding(2))] + (0..<3).map { _ in (digit: 5, embedding: Self.embedding(2)) }, width: 8)
        let adjusted = slip.adjust(p, embedding: Self.embedding(2, by: 0.12))
        #expect(adjusted[5] > 0.5 && adjusted[8] < 0.3, "\(adjusted)")
    }

    @Test func aBalancedSheetsLabelHasLessSayThanAPersons() {
        // The same ink labelled 5 by a person, or by a balanced sheet's sums: the sheet's label moves a sure 3 less,
        // at most its own share, and a person's label beside it still counts in full.
        let p = Self.probabilities(3, 0.98, other: 5)
        let say = DigitAdaptation.balancedShare / DigitAdaptation.personShare
        let person = DigitAdaptation(labelled: [(digit: 5, embedding: Self.embedding(2), say: 1)], width: 8)
        let sheet = DigitAdaptation(labelled: [(digit: 5, embedding: Self.embedding(2), say: say)], width: 8)
        let ink = Self.embedding(2, by: 0.12)
        #expect(sheet.adjust(p, embedding: ink)[5] < person.adjust(p, embedding: ink)[5])
        #expect(sheet.adjust(p, embedding: ink)[5] <= DigitAdaptation.balancedShare + 0.02 + 1e-9)
        let both = DigitAdaptation(labelled: [(digit: 5, embedding: Self.embedding(2), say: say), (digit: 5, embedding: Self.embedding(2), say: 1)], width: 8)
        #expect(both.adjust(p, embedding: ink)[5] > person.adjust(p, embedding: ink)[5])
    }

    @Test func fewOrDistantNeighboursWeighLittle() {
        let one = DigitAdaptation(examples: [(digit: 8, embedding: Self.embedding(4))], width: 8)
        let many = DigitAdaptation(examples: (0..<8).map { _ in (digit: 8, embedding: Self.embedding(4)) }, width: 8)
        let p = Self.probabilities(3, 0.9, other: 5)
        #expect(one.adjust(p, embedding: Self.embedding(4))[8] < many.adjust(p, embedding: Self.embedding(4))[8])
        // A mark unlike every example (orthogonal) keeps nearly all of the network's reading.
        #expect(many.adjust(p, embedding: Self.embedding(1, tilt: 0, by: 0))[3] > 0.89)
    }

    @Test func labelsNeverSayWhetherAMarkIsADigit() {
        let adaptation = DigitAdaptation(examples: (0..<20).map { _ in (digit: 4, embedding: Self.embedding(6)) }, width: 8)
        let adjusted = adaptation.adjust(Self.probabilities(4, 0.05, other: 9, none: 0.9), embedding: Self.embedding(6))
        #expect(adjusted[DigitNetwork.noneClass] == 0.9)
        #expect(adjusted.indices.max { adjusted[$0] < adjusted[$1] } == DigitNetwork.noneClass)
    }

    @Test func theMostRecentExamplesAreKeptUpToCapacity() {
        let examples = (0..<(DigitAdaptation.capacity + 10)).map { i in (digit: i < DigitAdaptation.capacity ? 2 : 9, embedding: Self.embedding(3)) }
        let adaptation = DigitAdaptation(examples: examples, width: 8)
        #expect(adaptation.count == DigitAdaptation.capacity)
        #expect(adaptation.vote(Self.embedding(3)).votes[9] == 0)
    }

    @Test func evaluateGivesTheProbabilitiesAndTheHiddenLayerOfOnePass() throws {
        let widths = DigitNetwork.Widths(early: 4, late: 4, hidden: 12)
        let weights = DigitNetworkTests.randomWeights(seed: 7, widths: widths)
        let data = weights.withUnsafeBufferPointer { Data(buffer: $0) }
        let network = try DigitNetwork(weights: data, temperature: 1.3, widths: widths)
        let input = (0..<784).map { Float(($0 * 13) % 29) / 29 }
        let out = network.evaluate(input)
        #expect(out.probabilities == network.probabilities(input))
        #expect(out.embedding.count == 12 && network.embeddingWidth == 12)
        #expect(out.embedding.allSatisfy { $0 >= 0 }, "after the ReLU")
        #expect(network.passes == 2)
        let other = try DigitNetwork(weights: data, temperature: 1.4, widths: widths)
        #expect(network.identity != other.identity, "another temperature is another network")
        #expect(network.identity == (try DigitNetwork(weights: data, temperature: 1.3, widths: widths)).identity)
    }
}
