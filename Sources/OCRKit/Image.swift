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
        let data = UnsafeMutableRawPointer(pixGetData(pix)!)
        buffer.pixels.withUnsafeBufferPointer { src in
            for y in 0..<buffer.height {
                let row = data.advanced(by: y * wpl * 4).assumingMemoryBound(to: UInt8.self)
                let base = y * buffer.width
                for x in 0..<buffer.width { row[x ^ LeptonicaLayout.byteSwizzle] = src[base + x] }
            }
        }
    }

    /// Copies an 8-bit image's pixels out into Swift memory (row-major, no padding).
    public func grayBuffer() throws(ImagingError) -> GrayBuffer {
        let gray = depth == 8 && pixGetColormap(pix) == nil ? self : try toGray()
        let w = gray.width, h = gray.height
        let wpl = Int(pixGetWpl(gray.pix))
        let data = UnsafeRawPointer(pixGetData(gray.pix)!)
        var pixels = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeMutableBufferPointer { dst in
            for y in 0..<h {
                let row = data.advanced(by: y * wpl * 4).assumingMemoryBound(to: UInt8.self)
                let base = y * w
                for x in 0..<w { dst[base + x] = row[x ^ LeptonicaLayout.byteSwizzle] }
            }
        }
        return GrayBuffer(width: w, height: h, pixels: pixels)
    }

    /// 8-bit gray. Colour images take the darkest channel of each pixel rather than luminance, so that
    /// ink of any colour (blue and red pens included) is dark while white paper stays white.
    public func toGray() throws(ImagingError) -> Image {
        if depth == 32 {
            return try Image(taking: pixConvertRGBToGrayMinMax(pix, Int32(L_CHOOSE_MIN)), operation: "pixConvertRGBToGrayMinMax")
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

/// Leptonica stores 8-bit pixels big-endian inside 32-bit words; on little-endian machines byte `x` of
/// a row lives at offset `x ^ 3` (what its GET_DATA_BYTE macro does, which Swift cannot import).
enum LeptonicaLayout {
    #if _endian(little)
    static let byteSwizzle = 3
    #else
    static let byteSwizzle = 0
    #endif
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
