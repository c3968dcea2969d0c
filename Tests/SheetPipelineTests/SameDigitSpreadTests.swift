import Foundation
import SheetModel
import Testing
@testable import SheetPipeline

/// Print is told from hand by how alike the network's embeddings of a sheet's same digits are.
@Suite struct SameDigitSpreadTests {
    /// Fields read as `texts`, each digit with the embedding `embedding(digit, k)` for its k-th occurrence on the sheet.
    static func sheet(_ texts: [String], _ embedding: (Character, Int) -> [Float]) -> [HandwrittenDigitReader.FieldResult] {
        var seen: [Character: Int] = [:]
        return texts.map { text in
            let embeddings = text.map { digit in
                defer { seen[digit, default: 0] += 1 }
                return embedding(digit, seen[digit, default: 0])
            }
            return HandwrittenDigitReader.FieldResult(reading: FieldReading(value: .integer(Int(text)!), text: text, confidence: 99),
                                                      glyphHeights: [], digitEmbeddings: embeddings)
        }
    }

    /// Each digit's own direction in a 10-dimensional space, turned by `wobble` radians towards the next axis.
    static func digit(_ digit: Character, wobble: Double) -> [Float] {
        var vector = [Float](repeating: 0, count: 10)
        let axis = digit.wholeNumberValue!
        vector[axis] = Float(cos(wobble))
        vector[(axis + 1) % 10] = Float(sin(wobble))
        return vector
    }

    static let numbers = ["12", "7", "21", "17", "3", "13", "31", "11", "27", "72"]

    @Test func oneFontsDigitsAreTakenForPrint() throws {
        // Every 1 the same shape, give or take the photo: a hair's turn.
        let results = Self.sheet(Self.numbers) { digit, k in Self.digit(digit, wobble: 0.02 * Double(k % 2)) }
        let spread = try #require(SameDigitSpread(results))
        #expect(spread.pairs >= SameDigitSpread.fewestPairs)
        #expect(spread.writing == .print)
    }

    @Test func aHandsDigitsAreTakenForHandwriting() throws {
        // No two 1s alike: each turned further than the last.
        let results = Self.sheet(Self.numbers) { digit, k in Self.digit(digit, wobble: 0.25 * Double(k)) }
        let spread = try #require(SameDigitSpread(results))
        #expect(spread.median > SameDigitSpread.handAbove, "median \(spread.median) over \(spread.pairs) pairs")
        #expect(spread.writing == .hand)
    }

    @Test func fewRepeatedDigitsSayNothing() {
        // Two pairs of equal digits: identical, but too few to tell a font by.
        let results = Self.sheet(["12", "21", "3"]) { digit, _ in Self.digit(digit, wobble: 0) }
        #expect(SameDigitSpread(results)?.writing == nil)
        #expect(SameDigitSpread(Self.sheet(["3", "45"]) { digit, _ in Self.digit(digit, wobble: 0) }) == nil)
    }

    @Test func aReadingNotMadeOfItsCharactersIsLeftOut() throws {
        // A value corrected beside struck-out boxes ("7" from two characters' embeddings) cannot pair its digits.
        var corrected = Self.sheet(["77"]) { digit, _ in Self.digit(digit, wobble: 0) }[0]
        corrected.reading = FieldReading(value: .integer(7), text: "7", confidence: 99)
        let results = Self.sheet(Self.numbers) { digit, _ in Self.digit(digit, wobble: 0) }
        let without = try #require(SameDigitSpread(results))
        let with = try #require(SameDigitSpread(results + [corrected]))
        #expect(with.pairs == without.pairs)
    }
}
