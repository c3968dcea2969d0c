import CTesseract

/// A rectangle in pixels, origin top-left.
public struct PixelRect: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var area: Int { width * height }
    public var description: String { "\(width)×\(height)+\(x)+\(y)" }

    /// The part of this rectangle inside `bounds`, or nil when they do not overlap.
    public func clamped(to bounds: PixelRect) -> PixelRect? {
        let x0 = max(x, bounds.x), y0 = max(y, bounds.y)
        let x1 = min(maxX, bounds.maxX), y1 = min(maxY, bounds.maxY)
        return x1 > x0 && y1 > y0 ? PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }
}

/// A drawing colour. On gray images only its luminance is used.
public struct Color: Sendable, Equatable {
    public var red: UInt8, green: UInt8, blue: UInt8
    public init(red: UInt8, green: UInt8, blue: UInt8) { self.red = red; self.green = green; self.blue = blue }
    public static let black = Color(red: 0, green: 0, blue: 0)
    public static let white = Color(red: 255, green: 255, blue: 255)
    public static let red = Color(red: 220, green: 0, blue: 0)
    public static let green = Color(red: 0, green: 150, blue: 0)
    public static let blue = Color(red: 0, green: 60, blue: 220)

    var gray: UInt8 {
        let weighted: Int = 299 * Int(red) + 587 * Int(green) + 114 * Int(blue)
        return UInt8(weighted / 1000)
    }

    /// The pixel value Leptonica expects for an image of `depth` bits.
    func value(forDepth depth: Int) -> UInt32 {
        switch depth {
        case 32: (UInt32(red) << 24) | (UInt32(green) << 16) | (UInt32(blue) << 8)
        case 1: gray < 128 ? 1 : 0
        default: UInt32(gray)
        }
    }
}

/// One of Leptonica's built-in bitmap fonts (drawn for 300 ppi; sizes 4–20 pt in steps of 2).
public final class BitmapFont {
    let bmf: UnsafeMutablePointer<L_BMF>
    public let size: Int

    public init(size: Int) throws(ImagingError) {
        _ = DecoderMessages.silenced
        let even = min(20, max(4, size - size % 2))
        guard let bmf = bmfCreate(nil, Int32(even)) else { throw .operationFailed("bmfCreate(\(even))") }
        self.bmf = bmf
        self.size = even
    }

    deinit {
        var p: UnsafeMutablePointer<L_BMF>? = bmf
        bmfDestroy(&p)
    }

    /// Width in pixels of `text` drawn in this font.
    public func width(of text: String) -> Int {
        var w: Int32 = 0
        _ = bmfGetStringWidth(bmf, text, &w)
        return Int(w)
    }

    /// Height of a line of text in pixels (baseline to baseline).
    public var lineHeight: Int { Int(bmf.pointee.lineheight) }
}

extension Image {
    public func fill(_ rect: PixelRect, color: Color) throws(ImagingError) {
        guard let box = boxCreate(Int32(rect.x), Int32(rect.y), Int32(rect.width), Int32(rect.height)) else {
            throw .operationFailed("boxCreate")
        }
        var b: UnsafeMutablePointer<BOX>? = box
        defer { boxDestroy(&b) }
        if depth == 1 {
            pixRasterop(pix, Int32(rect.x), Int32(rect.y), Int32(rect.width), Int32(rect.height),
                        color.value(forDepth: 1) == 1 ? PIX_SET : PIX_CLR, nil, 0, 0)
        } else {
            pixSetInRectArbitrary(pix, box, color.value(forDepth: depth))
        }
    }

    /// Draws the outline of `rect` with lines of `lineWidth` pixels, inside the rectangle.
    public func strokeRect(_ rect: PixelRect, lineWidth: Int, color: Color) throws(ImagingError) {
        let w = max(1, lineWidth)
        try fill(PixelRect(x: rect.x, y: rect.y, width: rect.width, height: w), color: color)
        try fill(PixelRect(x: rect.x, y: rect.maxY - w, width: rect.width, height: w), color: color)
        try fill(PixelRect(x: rect.x, y: rect.y, width: w, height: rect.height), color: color)
        try fill(PixelRect(x: rect.maxX - w, y: rect.y, width: w, height: rect.height), color: color)
    }

    /// Draws a straight line between two pixel positions.
    public func drawLine(from start: (x: Int, y: Int), to end: (x: Int, y: Int), width: Int, color: Color) {
        if depth == 32 {
            pixRenderLineArb(pix, Int32(start.x), Int32(start.y), Int32(end.x), Int32(end.y), Int32(width),
                             color.red, color.green, color.blue)
        } else {
            // Leptonica sets or clears the pixels' bits: set is ink on a 1-bit image but white on a
            // gray one. Lines are drawn black or white only.
            let dark = color.gray < 128
            let op = (depth == 1) == dark ? L_SET_PIXELS : L_CLEAR_PIXELS
            pixRenderLine(pix, Int32(start.x), Int32(start.y), Int32(end.x), Int32(end.y), Int32(width), Int32(op))
        }
    }

    /// Draws one line of text with its baseline at `baseline`; returns the width drawn.
    @discardableResult
    public func drawText(_ text: String, x: Int, baseline: Int, font: BitmapFont, color: Color = .black) -> Int {
        var width: Int32 = 0, overflow: Int32 = 0
        pixSetTextline(pix, font.bmf, text, color.value(forDepth: depth), Int32(x), Int32(baseline), &width, &overflow)
        return Int(width)
    }

    /// A 32-bit colour copy, for annotating.
    public func toRGB() throws(ImagingError) -> Image {
        try Image(taking: pixConvertTo32(pix), operation: "pixConvertTo32")
    }
}
