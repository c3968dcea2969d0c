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

    /// The blank paper beside the field (`SheetTemplate.spaceBeside`): where a number struck out in the
    /// boxes is written again. Nil when the template leaves no room.
    public let beside: Beside?

    /// The space beside a field, cut like the field only when asked for: it is read only for a number
    /// struck out, and pictured only for review.
    public struct Beside: Sendable {
        public let rect: Rect
        let photo: GrayBuffer
        let mapping: PageMapping
        let scale: Double
        let margin: Double

        /// The space's own cell.
        public var cell: FieldCell { FieldCell(rect, from: photo, through: mapping, scale: scale, margin: margin) }
    }

    public init(image: GrayBuffer, scale: Double, origin: Point) {
        self.image = image
        self.scale = scale
        self.origin = origin
        beside = nil
    }

    /// Cuts `field` (plus `margin` points) out of an aligned image, and keeps the space `beside` it, when
    /// given, to cut on demand.
    public init(field: FieldSpec, from image: GrayBuffer, through homography: Homography, beside space: Rect? = nil,
                scale: Double = FieldCell.standardScale, margin: Double = FieldCell.standardMargin) {
        self.init(field: field, from: image, through: PageMapping(homography: homography), beside: space, scale: scale, margin: margin)
    }

    /// The same through a mapping that follows a bent page.
    public init(field: FieldSpec, from image: GrayBuffer, through mapping: PageMapping, beside space: Rect? = nil,
                scale: Double = FieldCell.standardScale, margin: Double = FieldCell.standardMargin) {
        self.init(field.rect, from: image, through: mapping, scale: scale, margin: margin,
                  beside: space.map { Beside(rect: $0, photo: image, mapping: mapping, scale: scale, margin: margin) })
    }

    private init(_ rect: Rect, from image: GrayBuffer, through mapping: PageMapping, scale: Double, margin: Double,
                 beside: Beside? = nil) {
        self.image = image.resample(rect, margin: margin, scale: scale, through: mapping)
        self.scale = scale
        self.origin = Point(x: rect.x - margin, y: rect.y - margin)
        self.beside = beside
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

    /// The picture a person reviews of `field`, this cell's: the cell, widened over the space beside it
    /// when there is one, so that a number struck out and written again there is seen with its boxes.
    public func reviewSnapshotPNG(of field: FieldSpec) -> [UInt8]? {
        guard let beside else { return snapshotPNG() }
        let top = min(field.rect.y, beside.rect.y)
        let both = Rect(x: field.rect.x, y: top, width: beside.rect.maxX - field.rect.x,
                        height: max(field.rect.maxY, beside.rect.maxY) - top)
        return FieldCell(both, from: beside.photo, through: beside.mapping, scale: beside.scale, margin: beside.margin).snapshotPNG()
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
    /// One reading per field, in the same order, and how the sheet's numbers were written.
    func recognize(_ fields: [(field: FieldSpec, cell: FieldCell)]) throws -> RecognizedFields
}

/// What a recognizer read on one sheet. The writing comes back with the readings, not as the
/// recognizer's state, so nothing asks a recognizer afterwards what it decided for the last sheet.
public struct RecognizedFields: Sendable {
    /// One per field, in the fields' order.
    public var readings: [FieldReading]
    public var writing: Writing
    /// Each handwritten text field's characters with their candidates, by the field's index: what a box
    /// score's player is weighed from, with the number beside the name (`NameReadingModel.weighPlayer`).
    public var characters: [Int: [ReadCharacter]] = [:]
    /// Field index → the digit network's embedding of each character of a handwritten number, in reading
    /// order (`HandwrittenDigitReader.FieldResult.digitEmbeddings`); empty for print.
    public var digitEmbeddings: [Int: [[Float]]] = [:]
    /// The network that made them (`DigitNetwork.identity`).
    public var digitNetwork: String?
    /// Field index → a handwritten date's characters' probabilities, which its days are weighed against
    /// (`SeasonPrior.weigh(_:ink:context:)`); empty for print.
    public var dateInk: [Int: DateInk] = [:]

    public init(readings: [FieldReading], writing: Writing, characters: [Int: [ReadCharacter]] = [:],
                digitEmbeddings: [Int: [[Float]]] = [:], digitNetwork: String? = nil) {
        self.readings = readings; self.writing = writing; self.characters = characters
        self.digitEmbeddings = digitEmbeddings; self.digitNetwork = digitNetwork
    }
}
