import Foundation
import ReviewUI
import SheetPipeline
import SheetStore

/// Cell images for the review screen: the snapshot `scan` stored, else the cell cut again from the
/// sheet's file (a sheet stored before snapshots were kept), read once per sheet.
final class StoredCellImages: CellImageSource, @unchecked Sendable {
    private let store: any SheetStore
    private let library: TemplateLibrary
    private let lock = NSLock()
    /// Sheet id → its cells cut from the file (empty when the file could not be read).
    private var fromFiles: [Int64: [String: [UInt8]]] = [:]

    init(store: any SheetStore, library: TemplateLibrary) {
        self.store = store
        self.library = library
    }

    func cellImage(sheet: SheetImageKey, field: String) async -> CellPixels? {
        if let png = try? await store.cellImage(sheetID: sheet.sheetID, field: field) {
            return Self.pixels(Array(png))
        }
        return fileCells(sheet)[field].flatMap(Self.pixels)
    }

    private func fileCells(_ sheet: SheetImageKey) -> [String: [UInt8]] {
        lock.lock()
        defer { lock.unlock() }
        if let cells = fromFiles[sheet.sheetID] { return cells }
        let cells = (try? CellSnapshots.read(path: sheet.path, library: library, template: library.template(id: sheet.templateID))) ?? [:]
        fromFiles[sheet.sheetID] = cells
        return cells
    }

    static func pixels(_ png: [UInt8]) -> CellPixels? {
        CellSnapshots.decode(png).map { CellPixels(width: $0.width, height: $0.height, pixels: $0.pixels) }
    }
}
