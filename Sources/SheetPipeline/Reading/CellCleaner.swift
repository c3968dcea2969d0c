import OCRKit
import SheetModel

/// A field's ink, separated from the paper and the printed box: what the recognizers read.
public struct CleanedField {
    /// 1-bit image of the field's inside (the rect less its border), foreground = ink.
    public let ink: Image
    /// For each comb box (or the whole field), the share of its pixels that are ink.
    public let inkPerBox: [Double]
    /// Each comb box in `ink`'s pixels.
    public let boxes: [PixelRect]

    public var totalInk: Double { inkPerBox.reduce(0, +) / Double(max(1, inkPerBox.count)) }
}

/// Binarises a cell against its own paper brightness (so shadows and uneven light do not matter),
/// removes the printed box lines with long morphological openings, and drops specks.
///
/// Box lines must go before Tesseract sees the cell: with them it reads nothing at all.
public struct CellCleaner: Sendable {
    /// Ink is darker than this fraction of the paper.
    public var inkRatio = 0.6
    /// Components smaller than this many points in both directions are specks.
    public var speckPoints = 3.0
    /// Points cut from each side of the rect: the printed border itself.
    public var borderPoints = 1.2
    /// Half-width of the band around each printed line where shorter line bricks apply.
    public var bandPoints = 2.5

    /// Ragged edge removed with each printed line, in points.
    public var fringePoints = 0.4

    public init() {}

    /// The cell's ink: pixels darker than `inkRatio` of its own paper brightness (its 90th percentile).
    private func inkMask(_ cell: FieldCell) throws(ImagingError) -> Image {
        try Image(cell.image).thresholded(below: cell.image.inkThreshold(ratio: inkRatio))
    }

    private func fringe(_ scale: Double) -> Int { max(1, Int((fringePoints * scale).rounded())) }

    public func clean(_ field: FieldSpec, in cell: FieldCell) throws(ImagingError) -> CleanedField {
        let binary = try inkMask(cell)
        let s = cell.scale
        // A comb box's or the field's full-length lines are longer than any stroke of a digit or letter
        // written inside one box: a brick of 55% of the width and 85% of the height removes only them.
        let noLines = try binary.removingLines(horizontal: Int(field.rect.width * s * 0.55),
                                               vertical: Int(field.rect.height * s * 0.85), fringe: fringe(s))
        // Where the printed lines should be, shorter bricks catch what the first pass left: lines bent by
        // the camera or broken by the JPEG, which would otherwise read as a "1".
        let box = field.boxes[0]
        let band = bandPoints * s
        var bands: [PixelRect] = []
        for x in [field.rect.x] + field.boxes.map(\.maxX) {
            let p = cell.pixels(Rect(x: x, y: field.rect.y, width: 0, height: field.rect.height))
            bands.append(PixelRect(x: p.x - Int(band), y: p.y - Int(band), width: 2 * Int(band) + 1, height: p.height + 2 * Int(band)))
        }
        for y in [field.rect.y, field.rect.maxY] {
            let p = cell.pixels(Rect(x: field.rect.x, y: y, width: field.rect.width, height: 0))
            bands.append(PixelRect(x: p.x - Int(band), y: p.y - Int(band), width: p.width + 2 * Int(band), height: 2 * Int(band) + 1))
        }
        let noBandLines = try noLines.removingLines(horizontal: Int(box.width * s * 0.35), vertical: Int(field.rect.height * s * 0.35),
                                                    inside: bands, fringe: fringe(s))
        let speck = max(2, Int(speckPoints * s))
        let kept = try noBandLines.keepingComponents(minWidth: speck, minHeight: speck)
        let inside = cell.pixels(field.rect.insetBy(borderPoints, borderPoints))
        let ink = try kept.cropped(to: inside)
        let boxes = field.boxes.map { box -> PixelRect in
            let p = cell.pixels(box.insetBy(borderPoints, borderPoints))
            return PixelRect(x: p.x - inside.x, y: p.y - inside.y, width: p.width, height: p.height)
        }
        let inkPerBox = try boxes.map { box throws(ImagingError) -> Double in
            guard let r = box.clamped(to: PixelRect(x: 0, y: 0, width: ink.width, height: ink.height)) else { return 0 }
            return Double(try ink.cropped(to: r).foregroundCount) / Double(r.area)
        }
        return CleanedField(ink: ink, inkPerBox: inkPerBox, boxes: boxes)
    }

    /// Share of the inner part of a checkbox (its middle half each way) that is ink. Measured on the
    /// thresholded cell without line removal, so a fully filled box counts as marked.
    public func checkboxInk(_ field: FieldSpec, in cell: FieldCell) throws(ImagingError) -> Double {
        let binary = try inkMask(cell)
        let inner = cell.pixels(field.rect.insetBy(field.rect.width / 4, field.rect.height / 4))
        return Double(try binary.cropped(to: inner).foregroundCount) / Double(inner.area)
    }
}
