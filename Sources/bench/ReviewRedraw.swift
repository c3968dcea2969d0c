import Foundation
import ReviewUI
import SheetModel
import SheetStore

/// `bench review-redraw`: the time from a keypress to a finished screen on the review of a letter
/// sheet (the lacrosse template, 31 fields), at 80×24 and 200×60, in colour. Two keys: `j` (next
/// field: its cell image scaled into half-blocks, the map, the rules panel) and an edit saved with
/// Enter (a store write in a real SQLite file, the sheet reloaded, rules re-run); then the suggestion
/// search the loop runs once that screen is up. A printed sheet (one doubtful field) and a hand-filled
/// one (every number with four readings). Terminal output itself is not included: it is one write of
/// the lines measured here.
func benchReviewRedraw() async throws {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Templates/lacrosse-goalie.json")
    let template = try SheetTemplate.decode(try Data(contentsOf: path))
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("statsheet-bench-" + UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    for handFilled in [false, true] {
        let store = try SQLiteSheetStore(path: folder.appendingPathComponent("bench-\(handFilled).sqlite").path)
        _ = try await store.record(flaggedSheet(template, handFilled: handFilled), policy: ApprovalPolicy(), replace: false)
        let session = ReviewSession(store: store, reviewer: "bench", images: SyntheticCells(template: template),
                                    templates: { _, _ in template })
        try await session.start()
        for (width, height) in handFilled ? [(80, 24)] : [(80, 24), (200, 60)] {
            var sink = 0
            func draw() { sink += ReviewScreen.render(session.state, width: width, height: height, color: true).lines(color: true).count }
            var moves: [Double] = []
            for _ in 0..<301 {
                moves.append(try await milliseconds {
                    _ = try await session.handle(.character("j"))
                    draw()
                })
            }
            let move = summary(moves)
            while session.state.currentField?.stored.kind != .count { _ = try await session.handle(.character("j")) }
            let before = try await store.corrections(sheetID: 1).count
            var value = 0
            var saves: [Double] = [], searches: [Double] = []
            for _ in 0..<41 {
                value += 1
                saves.append(try await milliseconds {
                    for key in KeyDecoder.keys(Array("e\(value % 30)\r".utf8)) { _ = try await session.handle(key) }
                    draw()
                })
                // What the terminal loop does once that screen is up: search for a suggestion again.
                searches.append(try await milliseconds {
                    session.searchSuggestion()
                    draw()
                })
            }
            // Every edit above was a write: the store must hold one correction each.
            guard try await store.corrections(sheetID: 1).count == before + 41 else { throw StoreError("bench edits were not all saved") }
            let save = summary(saves), search = summary(searches)
            print(String(format: "review redraw %@ %dx%d: next field median %.2f ms (p90 %.2f); edit saved median %.2f ms (p90 %.2f); then suggestion search + redraw median %.2f ms (p90 %.2f); %d lines",
                         handFilled ? "hand-filled" : "printed", width, height, move.median, move.p90, save.median, save.p90,
                         search.median, search.p90, sink))
        }
    }
}

private func milliseconds(_ body: () async throws -> Void) async throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

private func summary(_ times: [Double]) -> (median: Double, p90: Double) {
    let sorted = times.sorted()
    return (sorted[sorted.count / 2], sorted[sorted.count * 9 / 10])
}

/// Cells the size `scan` stores them (1 px per point plus a 4 pt margin), with a box and a stroke.
private struct SyntheticCells: CellImageSource {
    let template: SheetTemplate
    func cellImage(sheet: SheetImageKey, field: String) async -> CellPixels? {
        guard let rect = template.field(field)?.rect else { return nil }
        let w = Int(rect.width) + 8, h = Int(rect.height) + 8
        var pixels = [UInt8](repeating: 235, count: w * h)
        for y in 0..<h { for x in 0..<w where x < 5 || x >= w - 5 || y < 5 || y >= h - 5 || abs(x - w / 2 - (y - h / 2) / 3) < 2 {
            pixels[y * w + x] = 40
        } }
        return CellPixels(width: w, height: h, pixels: pixels)
    }
}

/// Every field read, q2.saves doubtful (10, or 16) so that two rules fail and a suggestion exists;
/// `handFilled`: every number also has three other readings, as the digit network gives them.
private func flaggedSheet(_ template: SheetTemplate, handFilled: Bool) -> NewSheet {
    var values: [String: FieldValue] = ["athlete": .string("Quinn Walker"), "date": .string("2026-04-11"),
                                        "opponent": .string("Lincoln High"), "context.hs": .boolean(true)]
    for (row, shots, saves) in [("q1", 7, 6), ("q2", 17, 16), ("q3", 19, 10), ("q4", 15, 10), ("total", 58, 42)] {
        values["\(row).shots"] = .integer(shots); values["\(row).saves"] = .integer(saves)
        values["\(row).goals"] = .integer(shots - saves); values["\(row).clears"] = .integer(3)
    }
    values["total.clears"] = .integer(12)
    let fields = template.fields.map { spec -> (id: String, reading: FieldReading) in
        guard spec.id == "q2.saves" else {
            var reading = FieldReading(value: values[spec.id] ?? .empty, text: "", confidence: 98)
            if handFilled, case .integer(let n)? = values[spec.id] {
                reading.alternatives = [(n, 0.7), (n + 1, 0.15), (n + 10, 0.1), (max(0, n - 1), 0.05)]
                    .map { Alternative(value: .integer($0.0), probability: $0.1) }
            }
            return (spec.id, reading)
        }
        var doubtful = FieldReading(value: .integer(10), text: "10", confidence: 51, flagged: true)
        doubtful.alternatives = [Alternative(value: .integer(10), probability: 0.55), Alternative(value: .integer(16), probability: 0.4)]
        return (spec.id, doubtful)
    }
    let result = SheetResult(file: "/bench/sheet.png", template: template.id, templateVersion: template.version, status: .needsReview,
                             fields: fields, milliseconds: 0)
    return NewSheet(sha256: String(repeating: handFilled ? "4a" : "be", count: 32), path: result.file, scannedAt: Date(), result: result,
                    fields: template.fields, gameLog: template.gameLog?.draft(from: values))
}
