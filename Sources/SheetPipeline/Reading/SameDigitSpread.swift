import SheetModel

/// How alike a sheet's written digits of the same value are, as the digit network sees them: the evidence that
/// tells print from hand without Tesseract.
///
/// Print is one font, so every 7 on a printed sheet is the same shape and the network's embeddings of them nearly
/// coincide; no hand writes a digit twice the same. The median cosine distance between the embeddings of two
/// digits read as the same value was 0.001–0.012 on 138 printed sheets (scans and phone photos) and 0.017–0.32 on
/// 396 hand-filled ones; Tesseract's confidence on the numbers, the evidence before, judged 15 of those 534 sheets
/// the other way (`docs/decisions.md`).
struct SameDigitSpread {
    /// The median distance over every pair of digits read as the same value.
    let median: Double
    /// How many such pairs there were.
    let pairs: Int

    /// Under this median a sheet is printed, over `handAbove` handwritten; in between, and with fewer than
    /// `fewestPairs` pairs, the digits do not say.
    static let printBelow = 0.010
    static let handAbove = 0.020
    static let fewestPairs = 10

    /// The spread of the digits the network read in `results`, or nil when no digit value was read twice.
    init?(_ results: [HandwrittenDigitReader.FieldResult]) {
        var byDigit: [Character: [[Float]]] = [:]
        for result in results {
            let digits = result.reading.text.filter(\.isNumber)
            // The embeddings are those of the characters the value was read from; a reading whose text is not
            // those characters one for one (a struck-out digit's correction) says nothing here.
            guard digits.count == result.digitEmbeddings.count else { continue }
            for (digit, embedding) in zip(digits, result.digitEmbeddings) { byDigit[digit, default: []].append(embedding) }
        }
        var distances: [Double] = []
        for embeddings in byDigit.values where embeddings.count > 1 {
            let unit = embeddings.map(Self.normalized)
            for a in unit.indices {
                for b in unit.indices where b > a { distances.append(1 - Self.dot(unit[a], unit[b])) }
            }
        }
        guard !distances.isEmpty else { return nil }
        distances.sort()
        median = distances[distances.count / 2]
        pairs = distances.count
    }

    /// Print or hand, or nil when the digits do not say.
    var writing: Writing? {
        guard pairs >= Self.fewestPairs else { return nil }
        if median < Self.printBelow { return .print }
        if median > Self.handAbove { return .hand }
        return nil
    }

    private static func normalized(_ vector: [Float]) -> [Float] {
        let length = dot(vector, vector).squareRoot()
        return length > 0 ? vector.map { $0 / Float(length) } : vector
    }

    private static func dot(_ a: [Float], _ b: [Float]) -> Double {
        var sum: Float = 0
        for i in a.indices { sum += a[i] * b[i] }
        return Double(sum)
    }
}
