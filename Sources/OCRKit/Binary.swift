import CTesseract

/// Shape statistics of one connected component of a binary image.
public struct ComponentStats: Sendable, Equatable {
    /// Bounding box in the image's pixels.
    public let bounds: PixelRect
    /// Number of foreground pixels.
    public let area: Int
    /// Centre of mass, in the image's pixels.
    public let centroidX: Double, centroidY: Double
    /// Second central moments (variances and covariance of the pixel positions).
    public let varianceX: Double, varianceY: Double, covariance: Double
    /// Whether the pixel at the centroid is foreground (false for rings and hollow boxes).
    public let centroidIsForeground: Bool

    /// Ratio of the smaller to the larger principal axis of the pixel distribution: 1 for squares and
    /// discs in any rotation, near 0 for lines.
    public var isotropy: Double {
        let trace = varianceX + varianceY
        let det = varianceX * varianceY - covariance * covariance
        let disc = max(0, trace * trace / 4 - det).squareRoot()
        let major = trace / 2 + disc, minor = trace / 2 - disc
        return major > 0 ? max(0, minor) / major : 0
    }

    /// Spread of the pixels relative to their number: 1/6 for a solid square in any rotation, more for
    /// rings and outlines. Independent of scale.
    public var spread: Double { area > 0 ? (varianceX + varianceY) / Double(area) : 0 }
}

extension Image {
    /// A 1-bit image whose foreground is every pixel darker than `threshold`.
    public func thresholded(below threshold: Int) throws(ImagingError) -> Image {
        let gray = depth == 8 ? self : try toGray()
        return try Image(taking: pixThresholdToBinary(gray.pix, Int32(threshold)), operation: "pixThresholdToBinary")
    }

    /// Flattens uneven lighting: divides out a smooth estimate of the paper's brightness.
    public func backgroundNormalized() throws(ImagingError) -> Image {
        let gray = depth == 8 ? self : try toGray()
        return try Image(taking: pixBackgroundNormSimple(gray.pix, nil, nil), operation: "pixBackgroundNormSimple")
    }

    /// The foreground minus every horizontal run of at least `horizontal` pixels and every vertical run
    /// of at least `vertical` pixels: printed box lines go, handwriting and print inside the box stay.
    ///
    /// The lines found are widened by `fringe` pixels on each side before they are removed: a scanned
    /// line's edges are ragged after thresholding, and the rag left behind reads as a "1".
    public func removingLines(horizontal: Int, vertical: Int, fringe: Int = 1) throws(ImagingError) -> Image {
        guard depth == 1 else { throw .invalidArgument("line removal needs a 1-bit image") }
        let lines = try lineMask(horizontal: horizontal, vertical: vertical, fringe: fringe)
        return try Image(taking: pixSubtract(nil, pix, lines.pix), operation: "pixSubtract")
    }

    /// Long horizontal and vertical runs, each widened across its direction by `fringe` pixels.
    private func lineMask(horizontal: Int, vertical: Int, fringe: Int) throws(ImagingError) -> Image {
        // Composite bricks: a brick of n pixels costs about 2√n rasterops instead of n — line bricks are long.
        let h = try Image(taking: pixOpenCompBrick(nil, pix, Int32(max(2, horizontal)), 1), operation: "pixOpenCompBrick")
        let v = try Image(taking: pixOpenCompBrick(nil, pix, 1, Int32(max(2, vertical))), operation: "pixOpenCompBrick")
        if fringe > 0 {
            pixDilateBrick(h.pix, h.pix, 1, Int32(2 * fringe + 1))
            pixDilateBrick(v.pix, v.pix, Int32(2 * fringe + 1), 1)
        }
        pixOr(h.pix, h.pix, v.pix)
        return h
    }

    /// The foreground minus the horizontal runs of at least `horizontal` pixels and the vertical runs of
    /// at least `vertical` pixels that lie inside `bands`: for lines whose place is known, shorter bricks
    /// can be used there than anywhere else without touching what is written between them.
    public func removingLines(horizontal: Int, vertical: Int, inside bands: [PixelRect], fringe: Int = 1) throws(ImagingError) -> Image {
        guard depth == 1 else { throw .invalidArgument("line removal needs a 1-bit image") }
        let mask = try Image.blank(width: width, height: height, depth: 1)
        for band in bands {
            if let r = band.clamped(to: PixelRect(x: 0, y: 0, width: width, height: height)) { try mask.fill(r, color: .black) }
        }
        let h = try lineMask(horizontal: horizontal, vertical: vertical, fringe: fringe)
        pixAnd(h.pix, h.pix, mask.pix)
        return try Image(taking: pixSubtract(nil, pix, h.pix), operation: "pixSubtract")
    }

    /// Keeps only the connected components at least `minWidth` wide or `minHeight` tall (specks go).
    public func keepingComponents(minWidth: Int, minHeight: Int) throws(ImagingError) -> Image {
        guard depth == 1 else { throw .invalidArgument("component selection needs a 1-bit image") }
        var changed: Int32 = 0
        return try Image(
            taking: pixSelectBySize(pix, Int32(minWidth), Int32(minHeight), 8,
                                    Int32(L_SELECT_IF_EITHER), Int32(L_SELECT_IF_GTE), &changed),
            operation: "pixSelectBySize")
    }

    /// Whether the pixel of a 1-bit image is foreground; false outside the image.
    public func isForeground(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < width, y < height else { return false }
        var value: UInt32 = 0
        pixGetPixel(pix, Int32(x), Int32(y), &value)
        return value != 0
    }

    /// Number of foreground pixels of a 1-bit image.
    public var foregroundCount: Int {
        var count: Int32 = 0
        pixCountPixels(pix, &count, nil)
        return Int(count)
    }

    /// The smallest rectangle holding every foreground pixel of a 1-bit image; nil when it has none.
    public var foregroundBounds: PixelRect? {
        var box: UnsafeMutablePointer<BOX>?
        guard pixClipBoxToForeground(pix, nil, nil, &box) == 0, box != nil else { return nil }
        defer { boxDestroy(&box) }
        var x: Int32 = 0, y: Int32 = 0, w: Int32 = 0, h: Int32 = 0
        boxGetGeometry(box, &x, &y, &w, &h)
        return w > 0 && h > 0 ? PixelRect(x: Int(x), y: Int(y), width: Int(w), height: Int(h)) : nil
    }

    /// The part of the image inside `rect` (clamped to the image).
    public func cropped(to rect: PixelRect) throws(ImagingError) -> Image {
        guard let r = rect.clamped(to: PixelRect(x: 0, y: 0, width: width, height: height)) else {
            throw .invalidArgument("crop \(rect) outside \(width)×\(height)")
        }
        var box: UnsafeMutablePointer<BOX>? = boxCreate(Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height))
        defer { boxDestroy(&box) }
        return try Image(taking: pixClipRectangle(pix, box, nil), operation: "pixClipRectangle")
    }

    /// Copies `image` (of the same depth) into this one with its top-left corner at (`x`, `y`).
    public func paste(_ image: Image, x: Int, y: Int) throws(ImagingError) {
        guard image.depth == depth else { throw .invalidArgument("paste of a \(image.depth)-bit image into a \(depth)-bit one") }
        pixRasterop(pix, Int32(x), Int32(y), Int32(image.width), Int32(image.height), PIX_SRC, image.pix, 0, 0)
    }

    /// This image with a border of `pixels` on every side, of background colour.
    public func padded(by pixels: Int) throws(ImagingError) -> Image {
        let value: UInt32 = depth == 1 ? 0 : (depth == 32 ? 0xFFFF_FF00 : 255)
        return try Image(taking: pixAddBorder(pix, Int32(pixels), value), operation: "pixAddBorder")
    }

    /// Connected components (8-connected) of a 1-bit image whose bounding box passes `keep`, with
    /// their shape statistics.
    public func components(where keep: (PixelRect) -> Bool) throws(ImagingError) -> [ComponentStats] {
        var result: [ComponentStats] = []
        try forEachComponent { bounds, mask in
            if keep(bounds) { result.append(Self.stats(ofMask: mask, at: bounds)) }
        }
        return result
    }

    /// Calls `body` with each 8-connected component's bounding box and mask (a 1-bit image of the box).
    func forEachComponent(_ body: (PixelRect, UnsafeMutablePointer<PIX>) -> Void) throws(ImagingError) {
        guard depth == 1 else { throw .invalidArgument("components need a 1-bit image") }
        var pixa: UnsafeMutablePointer<PIXA>?
        var boxa = pixConnComp(pix, &pixa, 8)
        defer { boxaDestroy(&boxa); pixaDestroy(&pixa) }
        guard let pixa else { throw .operationFailed("pixConnComp") }
        for i in 0..<pixaGetCount(pixa) {
            var x: Int32 = 0, y: Int32 = 0, w: Int32 = 0, h: Int32 = 0
            pixaGetBoxGeometry(pixa, i, &x, &y, &w, &h)
            var mask = pixaGetPix(pixa, i, Int32(L_CLONE))
            defer { pixDestroy(&mask) }
            guard let mask else { continue }
            body(PixelRect(x: Int(x), y: Int(y), width: Int(w), height: Int(h)), mask)
        }
    }

    private static func stats(ofMask mask: UnsafeMutablePointer<PIX>, at bounds: PixelRect) -> ComponentStats {
        let wpl = Int(pixGetWpl(mask))
        let data = pixGetData(mask)!
        var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
        func bit(_ x: Int, _ y: Int) -> Bool {
            (data[y * wpl + (x >> 5)] >> (31 - UInt32(x & 31))) & 1 == 1
        }
        for y in 0..<bounds.height {
            for x in 0..<bounds.width where bit(x, y) {
                let fx = Double(x), fy = Double(y)
                n += 1; sx += fx; sy += fy; sxx += fx * fx; syy += fy * fy; sxy += fx * fy
            }
        }
        let cx = n > 0 ? sx / n : 0, cy = n > 0 ? sy / n : 0
        let ix = min(bounds.width - 1, max(0, Int(cx.rounded()))), iy = min(bounds.height - 1, max(0, Int(cy.rounded())))
        return ComponentStats(
            bounds: bounds, area: Int(n),
            centroidX: Double(bounds.x) + cx + 0.5, centroidY: Double(bounds.y) + cy + 0.5,
            varianceX: n > 0 ? sxx / n - cx * cx : 0, varianceY: n > 0 ? syy / n - cy * cy : 0,
            covariance: n > 0 ? sxy / n - cx * cy : 0,
            centroidIsForeground: n > 0 && bit(ix, iy))
    }
}

/// One connected component of a binary image: where it is and which of its box's pixels it owns.
/// Unlike the bounding box alone, the mask leaves out a neighbour's strokes that reach into the box.
public struct ComponentMask: Sendable, Equatable {
    /// Bounding box in the image's pixels.
    public let bounds: PixelRect
    /// Row-major over `bounds`: true where the pixel belongs to this component.
    public let bits: [Bool]
    public let area: Int

    public init(bounds: PixelRect, bits: [Bool]) {
        precondition(bits.count == bounds.area, "one bit per pixel of the bounds")
        self.bounds = bounds
        self.bits = bits
        self.area = bits.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
}

extension Image {
    /// Connected components (8-connected) of a 1-bit image with at least `minimumArea` pixels, each
    /// with its own mask, left to right.
    public func componentMasks(minimumArea: Int = 1) throws(ImagingError) -> [ComponentMask] {
        var result: [ComponentMask] = []
        try forEachComponent { bounds, mask in
            let wpl = Int(pixGetWpl(mask)), data = pixGetData(mask)!
            var bits = [Bool](repeating: false, count: bounds.area)
            for row in 0..<bounds.height {
                for col in 0..<bounds.width {
                    bits[row * bounds.width + col] = (data[row * wpl + (col >> 5)] >> (31 - UInt32(col & 31))) & 1 == 1
                }
            }
            let component = ComponentMask(bounds: bounds, bits: bits)
            if component.area >= minimumArea { result.append(component) }
        }
        return result.sorted { $0.bounds.x < $1.bounds.x }
    }
}
