import OCRKit
import SheetModel

/// One field's image, resampled upright from the photo at a fixed resolution, with a margin around
/// the field's rect so that its printed box lines are seen whole.
public struct FieldCell: Sendable {
    public let image: GrayBuffer
    /// Pixels per point.
    public let scale: Double
    /// The template point at the image's top-left corner.
    public let origin: Point

    public init(image: GrayBuffer, scale: Double, origin: Point) {
        self.image = image
        self.scale = scale
        self.origin = origin
    }

    /// Cuts `field` (plus `margin` points) out of an aligned image.
    public init(field: FieldSpec, from image: GrayBuffer, through homography: Homography,
                scale: Double = FieldCell.standardScale, margin: Double = FieldCell.standardMargin) {
        self.image = image.resample(field.rect, margin: margin, scale: scale, through: homography)
        self.scale = scale
        self.origin = Point(x: field.rect.x - margin, y: field.rect.y - margin)
    }

    /// 2.5 pixels per point (180 dpi): printed digits arrive about 50 pixels tall, which Tesseract's
    /// LSTM reads reliably, and box lines stay at least 2 pixels thick.
    public static let standardScale = 2.5
    /// Points of paper kept around the field: more than the fit's error, less than the gap to the
    /// neighbouring printed labels.
    public static let standardMargin = 4.0

    /// The cell as a small grayscale PNG for a person to look at (the review screen): at 1 px/pt
    /// (72 dpi) — a digit is about 15 pixels tall, more than the 8–10 terminal rows of half-blocks
    /// show it with — and 1–5 KB a field (phone photos' noise compresses worst). Nil if Leptonica
    /// cannot encode it; the screen then reads the file again.
    public func snapshotPNG(scale factor: Double = 1 / FieldCell.standardScale) -> [UInt8]? {
        try? Image(image).scaled(by: factor).encoded(as: .png)
    }

    /// `rect` (template points) in this cell's pixels.
    public func pixels(_ rect: Rect) -> PixelRect {
        let x0 = Int(((rect.x - origin.x) * scale).rounded()), y0 = Int(((rect.y - origin.y) * scale).rounded())
        let x1 = Int(((rect.maxX - origin.x) * scale).rounded()), y1 = Int(((rect.maxY - origin.y) * scale).rounded())
        return PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0))
    }
}

/// Reads a sheet's fields from their cells. The printed-text reader (Tesseract) is one; a handwriting
/// recognizer is another. A recognizer does not decide what is flagged: the scanner does, from the
/// confidence.
///
/// Recognizers get all of a sheet's fields at once so they can batch work (Tesseract reads a block of
/// lines in one call far faster than each line in its own call).
public protocol FieldRecognizer {
    /// One reading per field, in the same order.
    func read(_ fields: [(field: FieldSpec, cell: FieldCell)]) throws -> [FieldReading]
}
