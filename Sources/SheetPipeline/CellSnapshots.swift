import OCRKit
import SheetModel

/// Each field's cell cut from a sheet's file again, as `scan` cuts it: for the review screen when the
/// store holds no snapshot (a sheet stored before snapshots were kept).
public enum CellSnapshots {
    /// Field id → PNG; throws when the file cannot be loaded or aligned.
    public static func read(path: String, library: TemplateLibrary, template: SheetTemplate?) throws -> [String: [UInt8]] {
        let loaded = try ImageLoader().load(path)
        let gray = try loaded.image.grayBuffer()
        let quads = try MarkerDetector().detect(in: loaded.image)
        let aligned = try SheetAligner(library: library, requested: template).align(gray, candidates: quads)
        var snapshots: [String: [UInt8]] = [:]
        for field in aligned.template.fields {
            let cell = FieldCell(field: field, from: gray, through: aligned.mapping, beside: aligned.template.spaceBeside(field))
            snapshots[field.id] = cell.reviewSnapshotPNG(of: field)
        }
        return snapshots
    }

    /// Decodes a snapshot (any PNG) to 8-bit gray pixels.
    public static func decode(_ png: [UInt8]) -> GrayBuffer? {
        try? Image.decode(png, format: .png).image.grayBuffer()
    }
}
