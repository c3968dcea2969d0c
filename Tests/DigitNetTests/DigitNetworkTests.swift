import Foundation
import Testing
@testable import DigitNet

/// Checks the im2col/BLAS forward pass against a direct, loop-by-loop evaluation of the same layers,
/// with seeded random weights: the arithmetic is right whatever the training produced.
@Suite struct DigitNetworkTests {
    /// A small deterministic generator (SplitMix64), so the test needs no fixtures.
    struct Random {
        var state: UInt64
        mutating func next() -> Float {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return Float(z >> 40) / Float(1 << 24) - 0.5
        }
    }

    static func layerSizes(_ w: DigitNetwork.Widths) -> [Int] {
        let (e, l, h) = (w.early, w.late, w.hidden)
        return [e * 9, e, e * e * 9, e, l * e * 9, l, l * l * 9, l, h * l * 49, h, 11 * h, 11]
    }

    static func randomWeights(seed: UInt64, widths: DigitNetwork.Widths) -> [Float] {
        var random = Random(state: seed)
        return layerSizes(widths).flatMap { n in (0..<n).map { _ in random.next() * 0.4 } }
    }

    /// The shipped network's widths (24, 48, 192), and a narrow network in which every stage has
    /// another width, so a stage that read another's width would misalign the weights.
    static let shippedWidths = DigitNetwork.Widths(early: 24, late: 48, hidden: 192)
    static let narrowWidths = DigitNetwork.Widths(early: 6, late: 10, hidden: 14)
    static let widthsUnderTest = [shippedWidths, narrowWidths]

    static func data(_ floats: [Float]) -> Data {
        floats.withUnsafeBytes { Data($0) }
    }

    /// The same network, written as plainly as possible.
    static func reference(_ weights: [Float], _ input: [Float], temperature: Float, widths: DigitNetwork.Widths) -> [Float] {
        var offset = 0
        func take(_ n: Int) -> [Float] { defer { offset += n }; return Array(weights[offset..<offset + n]) }
        var x = input, size = 28, channels = 1
        for (index, out) in [widths.early, widths.early, widths.late, widths.late].enumerated() {
            let w = take(out * channels * 9), b = take(out)
            var y = [Float](repeating: 0, count: out * size * size)
            for o in 0..<out { for py in 0..<size { for px in 0..<size {
                var sum = b[o]
                for c in 0..<channels { for ky in 0..<3 { for kx in 0..<3 {
                    let sy = py + ky - 1, sx = px + kx - 1
                    if sy >= 0 && sy < size && sx >= 0 && sx < size {
                        sum += w[((o * channels + c) * 3 + ky) * 3 + kx] * x[(c * size + sy) * size + sx]
                    }
                }}}
                y[(o * size + py) * size + px] = max(0, sum)
            }}}
            x = y; channels = out
            if index % 2 == 1 {
                let half = size / 2
                var p = [Float](repeating: 0, count: channels * half * half)
                for c in 0..<channels { for py in 0..<half { for px in 0..<half {
                    var m = -Float.infinity
                    for dy in 0..<2 { for dx in 0..<2 { m = max(m, x[(c * size + 2 * py + dy) * size + 2 * px + dx]) } }
                    p[(c * half + py) * half + px] = m
                }}}
                x = p; size = half
            }
        }
        func dense(_ v: [Float], _ outputs: Int) -> [Float] {
            let w = take(outputs * v.count), b = take(outputs)
            return (0..<outputs).map { o in b[o] + (0..<v.count).reduce(Float(0)) { $0 + w[o * v.count + $1] * v[$1] } }
        }
        let hidden = dense(x, widths.hidden).map { max(0, $0) }
        let logits = dense(hidden, 11).map { $0 / temperature }
        let top = logits.max()!
        let e = logits.map { expf($0 - top) }
        return e.map { $0 / e.reduce(0, +) }
    }

    @Test(arguments: [UInt64(1), 2, 3], widthsUnderTest)
    func forwardPassMatchesThePlainReference(seed: UInt64, widths: DigitNetwork.Widths) throws {
        let weights = Self.randomWeights(seed: seed, widths: widths)
        let network = try DigitNetwork(weights: Self.data(weights), temperature: 1.7, widths: widths)
        var random = Random(state: seed &* 7)
        let input = (0..<784).map { _ in max(0, random.next() * 2) }
        let fast = network.probabilities(input)
        let plain = Self.reference(weights, input, temperature: 1.7, widths: widths)
        #expect(fast.count == 11)
        #expect(abs(fast.reduce(0, +) - 1) < 1e-5)
        for (a, b) in zip(fast, plain) { #expect(abs(a - b) < 1e-4, "\(fast) vs \(plain)") }
    }

    /// `bench digits-on-sheets` prices a sheet by the passes the network counts.
    @Test func eachInputReadIsCountedAsAPass() throws {
        let network = try DigitNetwork(weights: Self.data(Self.randomWeights(seed: 2, widths: Self.narrowWidths)), temperature: 1,
                                       widths: Self.narrowWidths)
        #expect(network.passes == 0)
        for _ in 0..<3 { _ = network.probabilities([Float](repeating: 0.5, count: 784)) }
        #expect(network.passes == 3)
    }

    @Test func wrongSizedWeightsAreRefused() {
        let shipped = Self.layerSizes(Self.shippedWidths).reduce(0, +) * 4
        #expect(throws: DigitNetworkError.wrongSize(expected: shipped, found: 400)) {
            try DigitNetwork(weights: Data(count: 400), temperature: 1, widths: Self.shippedWidths)
        }
        #expect(throws: DigitNetworkError.wrongSize(expected: Self.layerSizes(Self.narrowWidths).reduce(0, +) * 4, found: shipped)) {
            try DigitNetwork(weights: Self.data(Self.randomWeights(seed: 1, widths: Self.shippedWidths)), temperature: 1, widths: Self.narrowWidths)
        }
        #expect(throws: DigitNetworkError.badTemperature(0)) {
            try DigitNetwork(weights: Self.data(Self.randomWeights(seed: 1, widths: Self.narrowWidths)), temperature: 0, widths: Self.narrowWidths)
        }
    }
}

/// OpenBLAS is opened at run time with its kernels chosen from the CPU's features, since the OpenBLAS Debian 12
/// ships picks by model number and falls back to SSE3 on CPUs newer than it.
@Suite struct OpenBLASKernelTests {
    @Test func kernelsFollowTheCPUsFeatures() {
        let avx512: Set<Substring> = ["fpu", "sse2", "avx", "avx2", "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]
        #expect(OpenBLAS.kernelFor(flags: avx512) == "SkylakeX")
        // AVX-512 foundation alone (Knights Landing) lacks the subsets the SkylakeX kernels use.
        #expect(OpenBLAS.kernelFor(flags: ["avx2", "fma", "avx512f", "avx512cd"]) == "Haswell")
        #expect(OpenBLAS.kernelFor(flags: ["sse2", "avx", "avx2"]) == nil, "AVX2 without FMA")
        #expect(OpenBLAS.kernelFor(flags: []) == nil)
    }

    @Test func theNetworkRunsOnTheKernelsThisCPUCalledFor() throws {
        let network = try DigitNetwork.bundled()
        let wanted = ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"] ?? OpenBLAS.kernelFor(flags: OpenBLAS.cpuFlags())
        guard let wanted else { return }
        #expect(network.blasKernel.lowercased() == wanted.lowercased(), "OpenBLAS chose \(network.blasKernel), the CPU called for \(wanted)")
    }
}

/// The widths come from the layer shapes `train.py` records in `digits-cnn.json`, and only a record
/// of exactly this network's twelve tensors gives any.
@Suite struct DigitNetworkMetadataTests {
    static func metadata(_ layers: [(name: String, shape: [Int])]) throws -> DigitNetwork.Metadata {
        let records = layers.map { ["name": $0.name, "shape": $0.shape] as [String: Any] }
        let json = try JSONSerialization.data(withJSONObject: ["temperature": 0.6, "layers": records])
        return try JSONDecoder().decode(DigitNetwork.Metadata.self, from: json)
    }

    @Test func widthsAreReadOffTheRecordedLayers() throws {
        let widths = DigitNetwork.Widths(early: 6, late: 10, hidden: 14)
        let layers = widths.layers
        #expect(layers.map(\.name) == ["conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias", "conv3.weight", "conv3.bias",
                                       "conv4.weight", "conv4.bias", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"])
        #expect(layers[4].shape == [10, 6, 3, 3] && layers[8].shape == [14, 490] && layers[10].shape == [11, 14])
        #expect(try Self.metadata(layers).widths == widths)
    }

    @Test func aRecordOfOtherLayersGivesNoWidths() throws {
        var layers = DigitNetwork.Widths(early: 6, late: 10, hidden: 14).layers
        #expect(try Self.metadata(Array(layers.dropLast())).widths == nil, "a tensor missing")
        layers[2].shape = [6, 5, 3, 3]   // conv2 reading five channels where conv1 makes six
        #expect(try Self.metadata(layers).widths == nil, "a shape that disagrees")
        #expect(try Self.metadata([]).widths == nil)
    }

    /// The committed metadata describes the committed weights.
    @Test func theShippedMetadataMatchesItsWeights() throws {
        let folder = TrainedWeightsTests.folder
        let meta = try JSONDecoder().decode(DigitNetwork.Metadata.self, from: Data(contentsOf: folder.appendingPathComponent("digits-cnn.json")))
        let widths = try #require(meta.widths)
        #expect(widths == DigitNetworkTests.shippedWidths)
        let weights = try Data(contentsOf: folder.appendingPathComponent("digits-cnn.bin"))
        #expect(widths.floatCount * 4 == weights.count)
    }
}

@Suite struct DigitNormalizerTests {
    /// A 30×60 bar of ink inside a 100×80 cell, off centre.
    static func bar() -> [Float] {
        var ink = [Float](repeating: 0, count: 100 * 80)
        for y in 10..<70 { for x in 60..<90 { ink[y * 100 + x] = 1 } }
        return ink
    }

    @Test func longerSideBecomesTwentyAndMassIsCentred() throws {
        let out = try #require(DigitNormalizer.normalize(ink: Self.bar(), width: 100, height: 80))
        var rows = Set<Int>(), cols = Set<Int>(), mass: Float = 0, cx: Float = 0, cy: Float = 0
        for y in 0..<28 { for x in 0..<28 where out[y * 28 + x] > 0.5 {
            rows.insert(y); cols.insert(x)
        }}
        for y in 0..<28 { for x in 0..<28 { let v = out[y * 28 + x]; mass += v; cx += v * (Float(x) + 0.5); cy += v * (Float(y) + 0.5) } }
        #expect(rows.count == 20)
        #expect(cols.count == 10)
        #expect(abs(cx / mass - 14) <= 0.5 && abs(cy / mass - 14) <= 0.5)
    }

    @Test func noInkIsNil() {
        #expect(DigitNormalizer.normalize(ink: [Float](repeating: 0, count: 100), width: 10, height: 10) == nil)
    }
}

/// The committed weights, run by the Swift forward pass, give the probabilities the training script's
/// plain NumPy reference computed from the same file (`Sources/DigitNet/Model/testvectors.json`).
@Suite struct TrainedWeightsTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/DigitNet/Model")

    struct Vectors: Decodable {
        struct Vector: Decodable {
            let name: String
            let input: [[Float]]
            let probabilities: [Float]
        }
        let temperature: Float
        let vectors: [Vector]
    }

    @Test func swiftForwardPassMatchesTheReferenceVectors() throws {
        let network = try DigitNetwork(contentsOf: Self.folder.appendingPathComponent("digits-cnn.bin"))
        let data = try Data(contentsOf: Self.folder.appendingPathComponent("testvectors.json"))
        let vectors = try JSONDecoder().decode(Vectors.self, from: data)
        #expect(abs(network.temperature - vectors.temperature) < 1e-6)
        try #require(vectors.vectors.count == 16)
        for v in vectors.vectors {
            let input = v.input.flatMap { $0 }
            try #require(input.count == 784, "\(v.name)")
            let p = network.probabilities(input)
            for (a, b) in zip(p, v.probabilities) { #expect(abs(a - b) < 1e-4, "\(v.name): \(p) vs \(v.probabilities)") }
        }
    }
}
