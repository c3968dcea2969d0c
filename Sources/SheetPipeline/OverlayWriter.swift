import Foundation
import OCRKit
import SheetModel

/// Writes an annotated copy of a sheet: every field's box as the fit placed it, with its reading —
/// green when accepted, red when flagged — so a person can see at a glance what was read where.
public struct OverlayWriter {
    public let folder: String

    public init(folder: String) { self.folder = folder }

    /// The overlay's path for an input file: `FOLDER/NAME.overlay.jpg`.
    public func path(for file: String) -> String {
        let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        return (folder as NSString).appendingPathComponent(name + ".overlay.jpg")
    }

    public func write(_ result: SheetResult, image: Image, aligned: AlignedSheet) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let canvas = try image.toRGB()
        let h = aligned.mapping
        let scale = aligned.report.scale
        let font = try BitmapFont(size: Int((scale * 72 / 300 * 10).rounded()))
        let width = max(2, Int(scale.rounded()))
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
        guard FileManager.default.createFile(atPath: path(for: result.file), contents: Data(bytes)) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path(for: result.file)])
        }
    }
}
