import Foundation
import OCRKit
import SheetModel

/// Writes an annotated copy of a sheet: every field's box as the fit placed it, with its reading —
/// green when accepted, red when flagged — so a person can see at a glance what was read where. On a page
/// that did not lie flat, the fitted page shape is drawn faintly under them (`meshLines`): what the aligner
/// believed of the paper.
public struct OverlayWriter {
    public let folder: String

    public init(folder: String) { self.folder = folder }

    /// The overlay's path for an input file: `FOLDER/NAME.overlay.jpg`, or `FOLDER/NAME.page-3.overlay.jpg` for
    /// a page of a document.
    public func path(for file: String, page: Int? = nil) -> String {
        let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        return (folder as NSString).appendingPathComponent(name + (page.map { ".page-\($0)" } ?? "") + ".overlay.jpg")
    }

    public func write(_ result: SheetResult, page: Int? = nil, image: Image, aligned: AlignedSheet) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let canvas = try image.toRGB()
        let h = aligned.mapping
        let scale = aligned.report.scale
        let font = try BitmapFont(size: Int((scale * 72 / 300 * 10).rounded()))
        let width = max(2, Int(scale.rounded()))
        for line in Self.meshLines(aligned.mapping) {
            for (a, b) in zip(line, line.dropFirst()) {
                canvas.drawLine(from: (Int(a.x), Int(a.y)), to: (Int(b.x), Int(b.y)), width: 1, color: Self.meshColor)
            }
        }
        for (id, reading) in result.fields {
            guard let field = aligned.template.field(id) else { continue }
            let color: Color = reading.flagged ? .red : .green
            let r = field.rect
            let corners = [Point(x: r.x, y: r.y), Point(x: r.maxX, y: r.y), Point(x: r.maxX, y: r.maxY), Point(x: r.x, y: r.maxY)]
                .map { h.apply($0) }
            for i in 0..<4 {
                let a = corners[i], b = corners[(i + 1) % 4]
                canvas.drawLine(from: (Int(a.x), Int(a.y)), to: (Int(b.x), Int(b.y)), width: width, color: color)
            }
            let label = "\(reading.value) \(Int(reading.confidence.rounded()))%"
            let anchor = h.apply(Point(x: r.x, y: r.maxY + 9))
            canvas.drawText(label, x: Int(anchor.x), baseline: Int(anchor.y), font: font, color: color)
        }
        let bytes = try canvas.encoded(as: .jpeg)
        let out = path(for: result.file, page: page)
        guard FileManager.default.createFile(atPath: out, contents: Data(bytes)) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: out])
        }
    }

    /// A light blue, faint beside the fields' green and red.
    static let meshColor = Color(red: 150, green: 180, blue: 235)

    /// The fitted page shape's grid lines in image pixels, each a polyline through its nodes and `between`
    /// points between them (the shape bends between nodes too); none when the page was taken as flat.
    static func meshLines(_ mapping: PageMapping, between: Int = 4) -> [[Point]] {
        guard let warp = mapping.warp else { return [] }
        func node(_ c: Double, _ r: Double) -> Point {
            mapping.apply(Point(x: warp.origin.x + c * warp.spacing, y: warp.origin.y + r * warp.spacing))
        }
        let steps = (0...(between + 1)).map { Double($0) / Double(between + 1) }
        let rows = (0..<warp.rows).map { r in
            (0..<(warp.columns - 1)).flatMap { c in steps.dropLast().map { node(Double(c) + $0, Double(r)) } } + [node(Double(warp.columns - 1), Double(r))]
        }
        let columns = (0..<warp.columns).map { c in
            (0..<(warp.rows - 1)).flatMap { r in steps.dropLast().map { node(Double(c), Double(r) + $0) } } + [node(Double(c), Double(warp.rows - 1))]
        }
        return rows + columns
    }
}
