import Foundation

/// What a store's labelled digits teach the reader about its writers: the network's probabilities for a
/// digit mixed with the labels of its nearest labelled neighbours in the network's embedding.
///
/// A club's numbers come from a few hands the network never met; a person who corrects or confirms a number
/// labels its digits. Near neighbours (cosine similarity of the hidden layer's activations, `DigitNetwork.evaluate`)
/// vote, each weighted by how close it is, `wᵢ = exp(sharpness · (cos − 1))`; their vote `q` is mixed in as
/// `p' = (1 − λ) p + λ q` (over the digits; "not a digit" keeps the network's mass). Each neighbour is one
/// person's word on ink like this, and the words add up as independent evidence (a noisy-or):
/// `λ = 1 − Π (1 − labelShare · wᵢ)`. One label, however close, decides at most `labelShare` of the
/// probabilities, so a label typed wrong can pull a sure reading under the review line (a person then looks)
/// but cannot make another value sure unless the network itself gave it more than
/// `(line − labelShare) / (1 − labelShare)`; several labels of near-identical ink that agree can. That is a
/// keeper's 5 the network reads as a sure 3, which a reviewer corrected time after time: under a bound on all
/// labels together it stayed a 3, sums and all (docs/decisions.md). The mixed probabilities then go through the
/// reader and the one model of doubt unchanged, like the network's own.
public struct DigitAdaptation: Sendable {
    /// Examples kept, most recent first; older ones beyond `capacity` are left out (time per digit stays bounded).
    public static let capacity = 2048

    /// Neighbours that vote.
    public var neighbours = 8
    /// How fast a neighbour's vote fades with distance: at 20, a neighbour at cosine 0.9 counts 0.14 of one at 1.
    public var sharpness: Float = 20
    /// The largest share of the probabilities one neighbour a person labelled may decide (at cosine 1; less as
    /// it lies further).
    public var labelShare = DigitAdaptation.personShare
    public static let personShare = 0.5
    /// The same for a neighbour labelled by a balanced sheet, not a person (`DigitExample.Source.balancedSheet`):
    /// its sums vouched for it, and a sheet can balance with two misreads that cancel. Half a person's say:
    /// on `Tools/stream-figure.sh`'s two USPS seasons a person's full say took one flag more off sheets 41–60
    /// (5.4% → 5.0% against 5.2%), not worth a label no one checked.
    public static let balancedShare = 0.25

    /// The examples' embeddings scaled to unit length, row after row.
    let matrix: [Float]
    let labels: [Int]
    /// Each example's largest say, relative to `labelShare` (1 for a person's label).
    let says: [Double]
    let width: Int

    /// Digits 0–9 a person labelled, with their embeddings (all of one network's width; others are left out),
    /// most recent first.
    public init(examples: [(digit: Int, embedding: [Float])], width: Int) {
        self.init(labelled: examples.map { ($0.digit, $0.embedding, 1) }, width: width)
    }

    /// Digits 0–9 with their embeddings and each one's say relative to a person's label (1; a balanced sheet's
    /// `balancedShare / labelShare`), in the order kept.
    public init(labelled examples: [(digit: Int, embedding: [Float], say: Double)], width: Int) {
        var matrix: [Float] = [], labels: [Int] = [], says: [Double] = []
        for example in examples where example.embedding.count == width && (0...9).contains(example.digit) {
            guard labels.count < Self.capacity else { break }
            let norm = sqrt(example.embedding.reduce(0) { $0 + $1 * $1 })
            guard norm > 0 else { continue }
            matrix += example.embedding.map { $0 / norm }
            labels.append(example.digit)
            says.append(example.say)
        }
        self.matrix = matrix
        self.labels = labels
        self.says = says
        self.width = width
    }

    public var count: Int { labels.count }

    /// The neighbours' vote over the eleven classes (none for "not a digit"), their total weight, and the share
    /// of the probabilities they decide together (λ).
    public func vote(_ embedding: [Float]) -> (votes: [Double], weight: Double, share: Double) {
        var votes = [Double](repeating: 0, count: DigitNetwork.classes)
        guard count > 0, embedding.count == width else { return (votes, 0, 0) }
        let norm = sqrt(embedding.reduce(0) { $0 + $1 * $1 })
        guard norm > 0 else { return (votes, 0, 0) }
        // Embeddings come from a network, and none can be made without OpenBLAS: this never returns early in practice.
        guard let blas = try? OpenBLAS.functions() else { return (votes, 0, 0) }
        var similarity = [Float](repeating: 0, count: count)
        matrix.withUnsafeBufferPointer { m in
            embedding.withUnsafeBufferPointer { x in
                similarity.withUnsafeMutableBufferPointer { y in
                    blas.sgemv(OpenBLAS.rowMajor, OpenBLAS.noTranspose, Int32(count), Int32(width), 1 / norm, m.baseAddress, Int32(width),
                                x.baseAddress, 1, 0, y.baseAddress, 1)
                }
            }
        }
        // The k most similar, by a partial selection (k is small).
        var nearest: [(similarity: Float, label: Int, say: Double)] = []
        for (i, s) in similarity.enumerated() where nearest.count < neighbours || s > nearest[nearest.count - 1].similarity {
            let at = nearest.firstIndex { $0.similarity < s } ?? nearest.count
            nearest.insert((similarity: s, label: labels[i], say: says[i]), at: at)
            if nearest.count > neighbours { nearest.removeLast() }
        }
        var total = 0.0, kept = 1.0
        for n in nearest {
            // A label's vote and its say are both in proportion to how much its labeller's word is worth.
            let w = Double(expf(sharpness * (n.similarity - 1)))
            votes[n.label] += w * n.say
            total += w * n.say
            kept *= 1 - labelShare * n.say * min(1, w)
        }
        guard total > 0 else { return (votes, 0, 0) }
        return (votes.map { $0 / total }, total, 1 - kept)
    }

    /// The network's probabilities for one character mixed with its neighbours' vote (see the type's comment).
    public func adjust(_ probabilities: [Double], embedding: [Float]) -> [Double] {
        let (votes, weight, lambda) = vote(embedding)
        guard weight > 0 else { return probabilities }
        // Labels say which digit a mark is, never whether it is one: "not a digit" keeps the network's mass,
        // and the neighbours share out only the rest.
        let digitMass = 1 - probabilities[DigitNetwork.noneClass]
        return probabilities.indices.map { c in
            c == DigitNetwork.noneClass ? probabilities[c] : (1 - lambda) * probabilities[c] + lambda * votes[c] * digitMass
        }
    }
}
