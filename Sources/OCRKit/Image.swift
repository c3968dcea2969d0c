import CTesseract

/// An image owned by Leptonica. The `PIX` is freed exactly once, when the last reference goes away;
/// the raw pointer is lent out only inside `withPix` to this module, never published.
///
/// A class rather than a `~Copyable` struct: images are handed between pipeline stages and kept in
/// collections (overlays, cell crops), and Leptonica's own reference counting is not used.
public final class Image {
    let pix: UnsafeMutablePointer<PIX>

    /// Takes ownership of a freshly created `PIX`; throws instead of wrapping a NULL.
    init(taking pix: UnsafeMutablePointer<PIX>?, operation: StaticString) throws(ImagingError) {
        guard let pix else { throw ImagingError.operationFailed(String(describing: operation)) }
        self.pix = pix
    }

    deinit {
        var p: UnsafeMutablePointer<PIX>? = pix
        pixDestroy(&p)
    }

    public var width: Int { Int(pixGetWidth(pix)) }
    public var height: Int { Int(pixGetHeight(pix)) }
    /// Bits per pixel: 1, 8 or 32 in practice.
    public var depth: Int { Int(pixGetDepth(pix)) }

    /// A blank image: white for 8 bpp and 32 bpp, background (0) for 1 bpp.
    public static func blank(width: Int, height: Int, depth: Int = 8) throws(ImagingError) -> Image {
        guard width > 0, height > 0, [1, 8, 32].contains(depth) else {
            throw .invalidArgument("blank image \(width)×\(height)×\(depth)")
        }
        let image = try Image(taking: pixCreate(Int32(width), Int32(height), Int32(depth)), operation: "pixCreate")
        if depth != 1 { pixSetAll(image.pix) }
        return image
    }

    /// An 8-bit gray image holding a copy of `buffer`.
    public convenience init(_ buffer: GrayBuffer) throws(ImagingError) {
        guard buffer.width > 0, buffer.height > 0 else { throw .invalidArgument("empty gray buffer") }
        try self.init(taking: pixCreate(Int32(buffer.width), Int32(buffer.height), 8), operation: "pixCreate")
        let wpl = Int(pixGetWpl(pix))
        let words = pixGetData(pix)!
        buffer.pixels.withUnsafeBytes { src in
            for y in 0..<buffer.height {
                LeptonicaLayout.copyRow(from: src.baseAddress! + y * buffer.width, toWords: words + y * wpl, count: buffer.width)
            }
        }
    }

    /// Copies an 8-bit image's pixels out into Swift memory (row-major, no padding).
    public func grayBuffer() throws(ImagingError) -> GrayBuffer {
        let gray = try toGray()
        let w = gray.width, h = gray.height
        let wpl = Int(pixGetWpl(gray.pix))
        let words = UnsafePointer(pixGetData(gray.pix)!)
        var pixels = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeMutableBytes { dst in
            for y in 0..<h {
                LeptonicaLayout.copyRow(fromWords: words + y * wpl, to: dst.baseAddress! + y * w, count: w)
            }
        }
        return GrayBuffer(width: w, height: h, pixels: pixels)
    }

    /// 8-bit gray: colour becomes luminance, as in the JPEG and PNG decoders. Pen inks (black, blue, red)
    /// stay under half the paper's brightness; yellow highlighter mostly disappears, as it should.
    public func toGray() throws(ImagingError) -> Image {
        if depth == 8 && pixGetColormap(pix) == nil { return self }
        if depth == 32 {
            return try Image(taking: pixConvertRGBToLuminance(pix), operation: "pixConvertRGBToLuminance")
        }
        if pixGetColormap(pix) != nil {
            let rgb = try Image(taking: pixRemoveColormap(pix, Int32(REMOVE_CMAP_TO_FULL_COLOR)), operation: "pixRemoveColormap")
            return try rgb.toGray()
        }
        return try Image(taking: pixConvertTo8(pix, 0), operation: "pixConvertTo8")
    }

    /// Rotated clockwise by `quarterTurns` × 90°.
    public func rotated(quarterTurns: Int) throws(ImagingError) -> Image {
        let q = ((quarterTurns % 4) + 4) % 4
        if q == 0 { return try copy() }
        return try Image(taking: pixRotateOrth(pix, Int32(q)), operation: "pixRotateOrth")
    }

    public func flippedLeftRight() throws(ImagingError) -> Image {
        try Image(taking: pixFlipLR(nil, pix), operation: "pixFlipLR")
    }

    public func flippedTopBottom() throws(ImagingError) -> Image {
        try Image(taking: pixFlipTB(nil, pix), operation: "pixFlipTB")
    }

    public func copy() throws(ImagingError) -> Image {
        try Image(taking: pixCopy(nil, pix), operation: "pixCopy")
    }

    /// Scaled by `factor` with area averaging when shrinking (no aliasing of thin box lines).
    public func scaled(by factor: Double) throws(ImagingError) -> Image {
        guard factor > 0 else { throw .invalidArgument("scale factor \(factor)") }
        if factor < 0.7 {
            return try Image(taking: pixScaleAreaMap(pix, Float(factor), Float(factor)), operation: "pixScaleAreaMap")
        }
        return try Image(taking: pixScale(pix, Float(factor), Float(factor)), operation: "pixScale")
    }

    /// An 8-bit gray copy scaled by `factor`; a 1-bit image turns into anti-aliased gray (black ink on
    /// white), which Tesseract's LSTM reads better than jagged bits.
    public func grayScaled(by factor: Double) throws(ImagingError) -> Image {
        let gray = depth == 1
            ? try Image(taking: pixConvert1To8(nil, pix, 255, 0), operation: "pixConvert1To8")
            : try toGray()
        return try gray.scaled(by: factor)
    }

    /// Halved `times` times by 2×2 area averaging: much cheaper than an arbitrary area-map scale, for
    /// analyses that only need a smaller image.
    public func halved(times: Int) throws(ImagingError) -> Image {
        var image = self
        for _ in 0..<max(0, times) {
            image = try Image(taking: pixScaleAreaMap2(image.pix), operation: "pixScaleAreaMap2")
        }
        return image
    }

    /// Sets the resolution stored in the file (PNG pHYs, PDF page size).
    public func setResolution(dpi: Int) {
        pixSetResolution(pix, Int32(dpi), Int32(dpi))
    }

    public var resolution: Int { Int(pixGetXRes(pix)) }

    /// Lends the raw `PIX` to code in this module only.
    func withPix<R>(_ body: (UnsafeMutablePointer<PIX>) throws -> R) rethrows -> R {
        try body(pix)
    }
}

/// Leptonica stores 8-bit pixels big-endian inside 32-bit words (pixel 0 in the most significant byte),
/// which its GET_DATA_BYTE macro hides and Swift cannot import. Rows are converted a word at a time.
enum LeptonicaLayout {
    static func copyRow(fromWords words: UnsafePointer<UInt32>, to out: UnsafeMutableRawPointer, count: Int) {
        let whole = count / 4
        for i in 0..<whole { out.storeBytes(of: words[i].bigEndian, toByteOffset: i * 4, as: UInt32.self) }
        if whole * 4 < count {
            let last = words[whole].bigEndian
            withUnsafeBytes(of: last) { bytes in
                for k in 0..<(count - whole * 4) { out.storeBytes(of: bytes[k], toByteOffset: whole * 4 + k, as: UInt8.self) }
            }
        }
    }

    static func copyRow(from source: UnsafeRawPointer, toWords words: UnsafeMutablePointer<UInt32>, count: Int) {
        let whole = count / 4
        for i in 0..<whole { words[i] = UInt32(bigEndian: source.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)) }
        if whole * 4 < count {
            var last: UInt32 = 0
            withUnsafeMutableBytes(of: &last) { bytes in
                for k in 0..<(count - whole * 4) { bytes[k] = source.load(fromByteOffset: whole * 4 + k, as: UInt8.self) }
            }
            words[whole] = UInt32(bigEndian: last)
        }
    }
}

/// 8-bit gray pixels in Swift memory: row-major, `width × height`, 0 black … 255 white.
public struct GrayBuffer: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "pixel count must equal width × height")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public init(width: Int, height: Int, fill: UInt8 = 255) {
        self.init(width: width, height: height, pixels: [UInt8](repeating: fill, count: width * height))
    }

    @inlinable public subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }
}
