import Foundation

/// A small convolutional network that reads one handwritten digit: 28×28 gray in (ink 1, paper 0,
/// the ink's longer side scaled to 20 pixels and its centre of mass centred, as MNIST), eleven
/// probabilities out — the digits 0–9 and "not a digit" (an empty box's remnants, a stray mark, a
/// crossed-out scribble).
///
/// Layers (batch normalisation already folded into the convolutions by the training script,
/// `Tools/digits/train.py`): conv 3×3 e, conv 3×3 e, max-pool 2, conv 3×3 l, conv 3×3 l,
/// max-pool 2, fully connected 49·l→h, fully connected h→11, softmax with a calibrated temperature.
/// The widths e, l, h come from the weights' metadata (`Widths`).
public final class DigitNetwork: Sendable {
    public static let side = 28
    public static let classes = 11
    /// Index of the "not a digit" class.
    public static let noneClass = 10

    struct Conv {
        let inChannels: Int, outChannels: Int
        let weights: [Float]   // [out][in·3·3], row-major
        let bias: [Float]
    }

    struct Dense {
        let inputs: Int, outputs: Int
        let weights: [Float]   // [out][in]
        let bias: [Float]
    }

    let convs: [Conv]
    let fc1: Dense, fc2: Dense
    /// The matrix products every pass is made of.
    let blas: OpenBLAS.Functions
    /// Logits are divided by this before the softmax (fitted on validation data: probabilities that
    /// mean what they say).
    public let temperature: Float
    /// Names these weights (and temperature): embeddings are comparable only between readings by the same
    /// network, so a store's examples carry it and a retrained network ignores those of another.
    public let identity: String
    private let passCount = PassCount()
    /// How many inputs the network has read since it was loaded: what whole sheets cost in passes, which
    /// `bench digits-on-sheets` counts (a reader makes more than one per digit).
    public var passes: Int { passCount.value }

    /// How wide each stage is: the training script decides, and `digits-cnn.json` records it (its
    /// `layers`), so a retrained network of another width needs no code change here.
    public struct Widths: Sendable, Equatable {
        /// Channels of the two convolutions before the first pooling, of the two after it, and the
        /// hidden fully connected layer.
        public let early: Int, late: Int, hidden: Int
        public init(early: Int, late: Int, hidden: Int) {
            self.early = early; self.late = late; self.hidden = hidden
        }

        var convolutions: [(in: Int, out: Int)] { [(1, early), (early, early), (early, late), (late, late)] }
        /// The flattened input of the first fully connected layer: two poolings take 28 to 7.
        var flattened: Int { late * 7 * 7 }

        /// Every tensor in file order with its shape, as `train.py` records them in `digits-cnn.json`.
        var layers: [(name: String, shape: [Int])] {
            let convolutions = convolutions.enumerated().flatMap { i, c in
                [("conv\(i + 1).weight", [c.out, c.in, 3, 3]), ("conv\(i + 1).bias", [c.out])]
            }
            return convolutions + [("fc1.weight", [hidden, flattened]), ("fc1.bias", [hidden]),
                                   ("fc2.weight", [DigitNetwork.classes, hidden]), ("fc2.bias", [DigitNetwork.classes])]
        }

        var floatCount: Int { layers.reduce(0) { $0 + $1.shape.reduce(1, *) } }
    }

    /// Reads weights in the layout written by `Tools/digits/train.py` (`digits-cnn.bin`): little-endian
    /// float32 tensors in layer order, each weight tensor followed by its bias.
    public init(weights data: Data, temperature: Float, widths: Widths) throws(DigitNetworkError) {
        let expected = widths.floatCount * 4
        guard data.count == expected else { throw .wrongSize(expected: expected, found: data.count) }
        guard temperature > 0, temperature.isFinite else { throw .badTemperature(temperature) }
        var floats = [Float](repeating: 0, count: data.count / 4)
        floats.withUnsafeMutableBytes { _ = data.copyBytes(to: $0) }
        #if _endian(big)
        floats = floats.map { Float(bitPattern: $0.bitPattern.byteSwapped) }
        #endif
        var offset = 0
        func take(_ n: Int) -> [Float] {
            defer { offset += n }
            return Array(floats[offset..<(offset + n)])
        }
        var convs: [Conv] = []
        for (cin, cout) in widths.convolutions {
            let w = take(cout * cin * 9)
            convs.append(Conv(inChannels: cin, outChannels: cout, weights: w, bias: take(cout)))
        }
        let w1 = take(widths.hidden * widths.flattened)
        fc1 = Dense(inputs: widths.flattened, outputs: widths.hidden, weights: w1, bias: take(widths.hidden))
        let w2 = take(Self.classes * widths.hidden)
        fc2 = Dense(inputs: widths.hidden, outputs: Self.classes, weights: w2, bias: take(Self.classes))
        self.convs = convs
        self.temperature = temperature
        identity = Self.identity(of: data, temperature: temperature)
        blas = try OpenBLAS.functions()
    }

    /// FNV-1a (64 bits) over the weights' bytes and the temperature's: a name, not a safeguard, so a plain
    /// hash written here rather than a dependency on swift-crypto for this target.
    static func identity(of data: Data, temperature: Float) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        data.withUnsafeBytes { for byte in $0 { add(byte) } }
        withUnsafeBytes(of: temperature.bitPattern.littleEndian) { for byte in $0 { add(byte) } }
        return String(hash, radix: 16)
    }

    /// Loads `digits-cnn.bin` with the temperature and widths from `digits-cnn.json` beside it.
    public convenience init(contentsOf weightsURL: URL) throws(DigitNetworkError) {
        let metadataURL = weightsURL.deletingPathExtension().appendingPathExtension("json")
        guard let data = try? Data(contentsOf: weightsURL) else { throw .unreadable(weightsURL.path) }
        guard let metaData = try? Data(contentsOf: metadataURL),
              let meta = try? JSONDecoder().decode(Metadata.self, from: metaData) else { throw .unreadable(metadataURL.path) }
        guard let widths = meta.widths else { throw .layersUnlike(metadataURL.path) }
        try self.init(weights: data, temperature: meta.temperature, widths: widths)
    }

    /// The network trained by `Tools/digits/train.py`, shipped with statsheet as a resource.
    public static func bundled() throws(DigitNetworkError) -> DigitNetwork {
        guard let url = Bundle.module.url(forResource: "digits-cnn", withExtension: "bin") else {
            throw .unreadable("digits-cnn.bin (the resource bundle beside the statsheet executable)")
        }
        return try DigitNetwork(contentsOf: url)
    }

    struct Metadata: Decodable {
        let temperature: Float
        let layers: [Layer]

        struct Layer: Decodable {
            let name: String
            let shape: [Int]
        }

        /// The widths read off the recorded layer shapes (conv1's and conv3's output channels, fc1's
        /// outputs), or nil unless every recorded tensor is the one this network of those widths has.
        var widths: Widths? {
            func outputs(_ name: String) -> Int? { layers.first { $0.name == name }?.shape.first }
            guard let early = outputs("conv1.weight"), let late = outputs("conv3.weight"), let hidden = outputs("fc1.weight") else {
                return nil
            }
            let widths = Widths(early: early, late: late, hidden: hidden)
            let expected = widths.layers
            guard layers.count == expected.count,
                  zip(layers, expected).allSatisfy({ $0.name == $1.name && $0.shape == $1.shape }) else { return nil }
            return widths
        }
    }

    /// The eleven class probabilities for one 28×28 input (row-major, ink 1, paper 0).
    public func probabilities(_ input: [Float]) -> [Float] { evaluate(input).probabilities }

    /// The kernel set OpenBLAS runs the products with ("SkylakeX", "Haswell", …; `OpenBLAS`).
    public var blasKernel: String { blas.kernel }

    /// How many numbers `evaluate` gives as a digit's embedding: the hidden layer's width.
    public var embeddingWidth: Int { fc1.outputs }

    /// The eleven class probabilities for one 28×28 input and, from the same pass, its embedding: the
    /// hidden layer's activations (after ReLU), where digits the network sees alike lie close. A store
    /// keeps them so that a person's later correction can teach the reader (`DigitAdaptation`).
    public func evaluate(_ input: [Float]) -> (probabilities: [Float], embedding: [Float]) {
        precondition(input.count == Self.side * Self.side, "the network reads 28×28 images")
        passCount.increment()
        var x = input, size = Self.side
        for (i, conv) in convs.enumerated() {
            x = Self.convolve(x, size: size, conv, blas)
            if i == 1 || i == 3 {
                x = Self.maxPool(x, channels: conv.outChannels, size: size)
                size /= 2
            }
        }
        var hidden = Self.dense(x, fc1, blas)
        for i in hidden.indices { hidden[i] = max(0, hidden[i]) }
        let logits = Self.dense(hidden, fc2, blas)
        let scaled = logits.map { $0 / temperature }
        let top = scaled.max()!
        let exps = scaled.map { expf($0 - top) }
        let total = exps.reduce(0, +)
        return (exps.map { $0 / total }, hidden)
    }

    /// 3×3 convolution, padding 1, then bias and ReLU, as one matrix product over an im2col matrix.
    static func convolve(_ input: [Float], size: Int, _ conv: Conv, _ blas: OpenBLAS.Functions) -> [Float] {
        let pixels = size * size, k = conv.inChannels * 9
        // Row r = (channel, dy, dx) holds, for every output pixel, the input pixel it sees there: each
        // image row shifted by dx, copied as one run (the padding stays zero).
        var columns = [Float](repeating: 0, count: k * pixels)
        input.withUnsafeBufferPointer { src in
            columns.withUnsafeMutableBufferPointer { col in
                let source = src.baseAddress!, target = col.baseAddress!
                for c in 0..<conv.inChannels {
                    for dy in -1...1 {
                        for dx in -1...1 {
                            let row = (c * 9 + (dy + 1) * 3 + (dx + 1)) * pixels
                            let x0 = max(0, -dx), run = size - abs(dx)
                            for y in max(0, -dy)..<min(size, size - dy) {
                                (target + row + y * size + x0).update(from: source + c * pixels + (y + dy) * size + x0 + dx, count: run)
                            }
                        }
                    }
                }
            }
        }
        var output = [Float](repeating: 0, count: conv.outChannels * pixels)
        conv.weights.withUnsafeBufferPointer { w in
            columns.withUnsafeBufferPointer { col in
                output.withUnsafeMutableBufferPointer { out in
                    blas.sgemm(OpenBLAS.rowMajor, OpenBLAS.noTranspose, OpenBLAS.noTranspose, Int32(conv.outChannels), Int32(pixels), Int32(k),
                                1, w.baseAddress, Int32(k), col.baseAddress, Int32(pixels), 0, out.baseAddress, Int32(pixels))
                }
            }
        }
        output.withUnsafeMutableBufferPointer { out in
            for o in 0..<conv.outChannels {
                let b = conv.bias[o]
                for p in (o * pixels)..<((o + 1) * pixels) { out[p] = max(0, out[p] + b) }
            }
        }
        return output
    }

    static func maxPool(_ input: [Float], channels: Int, size: Int) -> [Float] {
        let half = size / 2
        var output = [Float](repeating: 0, count: channels * half * half)
        for c in 0..<channels {
            for y in 0..<half {
                for x in 0..<half {
                    let i = c * size * size + 2 * y * size + 2 * x
                    output[c * half * half + y * half + x] = max(max(input[i], input[i + 1]), max(input[i + size], input[i + size + 1]))
                }
            }
        }
        return output
    }

    static func dense(_ input: [Float], _ layer: Dense, _ blas: OpenBLAS.Functions) -> [Float] {
        var output = layer.bias
        layer.weights.withUnsafeBufferPointer { w in
            input.withUnsafeBufferPointer { x in
                output.withUnsafeMutableBufferPointer { y in
                    blas.sgemv(OpenBLAS.rowMajor, OpenBLAS.noTranspose, Int32(layer.outputs), Int32(layer.inputs), 1,
                                w.baseAddress, Int32(layer.inputs), x.baseAddress, 1, 1, y.baseAddress, 1)
                }
            }
        }
        return output
    }
}

/// A count shared by the threads that use one network. A lock rather than the standard library's
/// `Atomic`, which needs macOS 15 and the package supports 13; it costs nanoseconds against a pass's
/// 0.4 ms.
private final class PassCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}

public enum DigitNetworkError: Error, Equatable, Sendable, CustomStringConvertible {
    case wrongSize(expected: Int, found: Int)
    case badTemperature(Float)
    case unreadable(String)
    case layersUnlike(String)
    case noBLAS(String)

    public var description: String {
        switch self {
        case .wrongSize(let expected, let found): "digit network weights have \(found) bytes, expected \(expected)"
        case .badTemperature(let t): "digit network temperature \(t) must be a positive number"
        case .unreadable(let path): "cannot read digit network file \(path)"
        case .layersUnlike(let path): "\(path) records layers this digit network does not have (conv1–conv4, fc1, fc2, in that order)"
        case .noBLAS(let why): "the digit network needs OpenBLAS: \(why)"
        }
    }
}
