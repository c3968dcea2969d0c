import OCRKit
import SheetModel

/// A draft template made from a photo or scan of a blank form printed elsewhere, with the straightened
/// page it was read from.
public struct DiscoveredForm {
    public let template: SheetTemplate
    /// The page upright and straight, 8-bit gray; `scaleX`, `scaleY` pixels per point.
    public let page: Image
    public let scaleX: Double, scaleY: Double
    public let paper: PaperSize
    /// The page's width over its height, from which `paper` was told when not given: through the camera for a
    /// photo (`PageProportions`), as straightened for a flat scan.
    public let aspect: Double
    /// True when `paper` was told from `aspect` in a photo whose proportions are within what a photo may leave
    /// in them (`PaperSize.perspectiveShift`) of the other standard size too: the person is asked to say
    /// (`--paper`), since a draft at the wrong size is scaled by 6% (a box 5 inches down lands 7 mm off).
    public var paperInDoubt: Bool {
        !paperGiven && corners != nil && paper.photoMayBeTheOther(aspect: aspect)
    }
    /// Whether the person gave the paper's size (`paper` is then theirs, not told from the page).
    public let paperGiven: Bool
    /// The paper's corners in the input image (top-left, top-right, bottom-right, bottom-left as found,
    /// before the quarter turns); nil when the image was taken as a flat scan.
    public let corners: [Point]?
    /// Clockwise quarter turns applied to make the page upright.
    public let quarterTurns: Int
    /// Degrees a flat scan was turned by to deskew it (0 for a photo, which the warp straightens).
    public let deskew: Double

    /// The straightened page with each field's box and id drawn on it: for a person to check the draft
    /// before using it.
    public func preview() throws(ImagingError) -> Image {
        let canvas = try page.toRGB()
        let scale = (scaleX + scaleY) / 2
        let font = try BitmapFont(size: Int((scale * 72 / 300 * 8).rounded()))
        let width = max(1, Int((scale * 0.75).rounded()))
        let colors: [FieldKind: Color] = [.checkbox: .blue, .text: .green, .count: .red]
        for field in template.fields {
            let r = field.rect
            let box = PixelRect(x: Int((r.x * scaleX).rounded()), y: Int((r.y * scaleY).rounded()),
                                width: Int((r.width * scaleX).rounded()), height: Int((r.height * scaleY).rounded()))
            let color = colors[field.kind] ?? .red
            try canvas.strokeRect(box, lineWidth: width, color: color)
            canvas.drawText(String(field.id.dropFirst(4)), x: box.x + 2 * width, baseline: box.y + font.lineHeight * 3 / 4 + 2 * width,
                            font: font, color: color)
        }
        return canvas
    }
}

/// Makes a draft template from a blank form: the page found and straightened (`PageFinder`), turned
/// upright by its print (`PageOrientation`), its boxes found (`BoxFinder`) and written as fields
/// (`DraftTemplate`).
public struct FormDiscovery {
    public init() {}

    /// - Parameters:
    ///   - engine: reads the form's print to orient the page and label the fields.
    ///   - paper: the paper's size when the person knows it; otherwise the standard size nearest the page's
    ///     proportions (in a photo, those its corners give through the camera: `PageProportions`).
    public func discover(_ image: Image, id: String, title: String, engine: TesseractEngine,
                         paper known: PaperSize? = nil) throws(FormDiscoveryError) -> DiscoveredForm {
        let found = try PageFinder().find(in: image)
        let upright: Image, uprightText: Image
        let orientation: PageOrientation.Result
        do {
            // Tesseract reads the print with the form's lines taken out: a label printed close to a box's
            // edge ("☐ Club") was otherwise not found at all, being one blob with the box.
            let scale = Double(max(found.image.width, found.image.height)) / 792
            // Runs of 14 points and more: a checkbox's edges go, a 12-point label's tallest letters stay.
            let run = max(4, Int((14 * scale).rounded()))
            let text = try BoxFinder.binarized(found.image).removingLines(horizontal: run, vertical: run, fringe: max(1, Int(scale / 3)))
            orientation = try PageOrientation().orient(text, engine: engine)
            upright = try found.image.rotated(quarterTurns: orientation.quarterTurns)
            uprightText = try text.rotated(quarterTurns: orientation.quarterTurns)
        } catch let error as TesseractError {
            throw .reading(error)
        } catch let error as ImagingError {
            throw .imaging(error)
        } catch {
            throw .imaging(.operationFailed("\(error)"))
        }
        // A photo's page is as wide as its corners say through the camera (`PageProportions`), not as its sides
        // are long: a tilt toward the far edge shortens the page by more than Letter and A4 differ.
        let aspect: Double
        if let corners = found.corners, let estimate = PageProportions.estimate(corners: corners, width: image.width, height: image.height) {
            aspect = orientation.quarterTurns % 2 == 0 ? estimate.aspect : 1 / estimate.aspect
        } else {
            aspect = Double(upright.width) / Double(upright.height)
        }
        let (paper, page) = known.flatMap { paper in paper.size(landscape: aspect > 1).map { (paper, $0) } } ?? PaperSize.nearest(aspect: aspect)
        let scaleX = Double(upright.width) / page.width, scaleY = Double(upright.height) / page.height
        let boxes: BoxFinder.Found
        do {
            boxes = try BoxFinder().find(in: upright, scaleX: scaleX, scaleY: scaleY)
        } catch {
            throw .imaging(error)
        }
        guard !boxes.cells.isEmpty else { throw .noBoxes }
        // Labels are read again at full resolution, only when the page has print to read at all.
        let pageWords: [PageWord]
        do {
            pageWords = orientation.words.isEmpty ? [] : try PageOrientation().words(on: uprightText, engine: engine)
        } catch {
            pageWords = orientation.words
        }
        let words = pageWords.map { w in
            DraftTemplate.Word(text: w.text, rect: Rect(x: Double(w.bounds.x) / scaleX, y: Double(w.bounds.y) / scaleY,
                                                        width: Double(w.bounds.width) / scaleX, height: Double(w.bounds.height) / scaleY))
        }
        let template = DraftTemplate(id: id, title: title, page: page).make(cells: boxes.cells, lines: boxes.lines, words: words)
        return DiscoveredForm(template: template, page: upright, scaleX: scaleX, scaleY: scaleY, paper: paper, aspect: aspect, paperGiven: known != nil,
                              corners: found.corners, quarterTurns: orientation.quarterTurns, deskew: found.deskew)
    }
}
