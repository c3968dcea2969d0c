import CTesseract

/// A connected region of a 1-bit image: its bounding box and how many of the box's pixels it owns.
public struct RegionBox: Sendable, Equatable {
    public let bounds: PixelRect
    public let area: Int
    /// The share of the bounding box the region fills: 1 for a rectangle, far less for an L or a frame.
    public var fill: Double { bounds.area > 0 ? Double(area) / Double(bounds.area) : 0 }
}

extension Image {
    /// Foreground and background swapped (1-bit), or the photographic negative (8-bit).
    public func inverted() throws(ImagingError) -> Image {
        try Image(taking: pixInvert(nil, pix), operation: "pixInvert")
    }

    /// The union of two 1-bit images of the same size.
    public func union(_ other: Image) throws(ImagingError) -> Image {
        guard depth == 1, other.depth == 1, width == other.width, height == other.height else {
            throw .invalidArgument("union of \(width)×\(height)×\(depth) and \(other.width)×\(other.height)×\(other.depth)")
        }
        return try Image(taking: pixOr(nil, pix, other.pix), operation: "pixOr")
    }

    /// The connected regions of a 1-bit image's foreground with their areas. `connectivity` 4 keeps two
    /// regions that touch only at a corner apart: the background of a grid is 4-connected inside each cell.
    public func regions(connectivity: Int = 4, where keep: (PixelRect) -> Bool) throws(ImagingError) -> [RegionBox] {
        guard depth == 1 else { throw .invalidArgument("regions need a 1-bit image") }
        var pixa: UnsafeMutablePointer<PIXA>?
        var boxa = pixConnComp(pix, &pixa, connectivity == 8 ? 8 : 4)
        defer { boxaDestroy(&boxa); pixaDestroy(&pixa) }
        guard let pixa else { throw .operationFailed("pixConnComp") }
        var result: [RegionBox] = []
        for i in 0..<pixaGetCount(pixa) {
            var x: Int32 = 0, y: Int32 = 0, w: Int32 = 0, h: Int32 = 0
            pixaGetBoxGeometry(pixa, i, &x, &y, &w, &h)
            let bounds = PixelRect(x: Int(x), y: Int(y), width: Int(w), height: Int(h))
            guard keep(bounds) else { continue }
            var mask = pixaGetPix(pixa, i, Int32(L_CLONE))
            defer { pixDestroy(&mask) }
            var count: Int32 = 0
            pixCountPixels(mask, &count, nil)
            result.append(RegionBox(bounds: bounds, area: Int(count)))
        }
        return result
    }

    /// A 1-bit image closed with a `width` × `height` brick: gaps shorter than the brick along it are
    /// filled. A printed line scanned faintly breaks into pieces a pixel or two apart.
    public func closed(width: Int, height: Int) throws(ImagingError) -> Image {
        guard depth == 1 else { throw .invalidArgument("closing needs a 1-bit image") }
        return try Image(taking: pixCloseSafeBrick(nil, pix, Int32(max(1, width)), Int32(max(1, height))), operation: "pixCloseSafeBrick")
    }

    /// The foreground components of a 1-bit image that touch its border: the table a photographed page
    /// lies on, when the dark pixels are the foreground.
    public func borderConnected(connectivity: Int = 8) throws(ImagingError) -> Image {
        guard depth == 1 else { throw .invalidArgument("border components need a 1-bit image") }
        return try Image(taking: pixExtractBorderConnComps(pix, connectivity == 4 ? 4 : 8), operation: "pixExtractBorderConnComps")
    }

    /// The skew of a 1-bit image's text and lines in degrees (positive: clockwise, as Leptonica's
    /// `pixFindSkew` reports it) with its confidence; nil when Leptonica finds none it trusts.
    public func skew() -> (degrees: Double, confidence: Double)? {
        guard depth == 1 else { return nil }
        var angle: Float = 0, confidence: Float = 0
        guard pixFindSkew(pix, &angle, &confidence) == 0 else { return nil }
        return (Double(angle), Double(confidence))
    }

    /// Rotated about its centre by `degrees` (Leptonica's sign: the angle `skew()` reports undoes the
    /// skew), same size, with white brought in at the corners.
    public func rotated(degrees: Double) throws(ImagingError) -> Image {
        let radians = Float(degrees * .pi / 180)
        return try Image(taking: pixRotate(pix, radians, Int32(L_ROTATE_AREA_MAP), Int32(L_BRING_IN_WHITE), 0, 0),
                         operation: "pixRotate")
    }
}
