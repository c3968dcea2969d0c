import Foundation
import SheetModel
import SheetPipeline

/// Prints scan results: JSON lines for programs, tables for people.
struct ScanOutput {
    let json: Bool
    let library: TemplateLibrary

    func show(_ result: SheetResult) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            if let data = try? encoder.encode(result) { print(String(decoding: data, as: UTF8.self)) }
            return
        }
        print(table(result))
    }

    func table(_ result: SheetResult) -> String {
        var lines: [String] = []
        guard result.status != .failed else {
            return "\(result.file): FAILED — \(result.error ?? "unknown error")\n"
        }
        var heading = "\(result.file) — \(result.template ?? "?") v\(result.templateVersion ?? 0) — \(result.status.rawValue)"
        if let a = result.alignment {
            heading += String(format: " (alignment %.0f%%, %.0f ms)", a.quality * 100, result.milliseconds)
        }
        lines.append(heading)

        // Fields named ROW.COLUMN whose rows share the same columns print as a grid; the rest as a list.
        let groups = Dictionary(grouping: result.fields.filter { $0.id.contains(".") }) { String($0.id.split(separator: ".")[0]) }
        let columnsOf = groups.mapValues { $0.map { String($0.id.split(separator: ".", maxSplits: 1)[1]) } }
        let gridColumns = columnsOf.values.first { cols in columnsOf.values.filter { $0 == cols }.count >= 2 && cols.count >= 2 }
        let gridRows = result.fields.compactMap { f -> String? in
            let row = String(f.id.split(separator: ".")[0])
            return columnsOf[row] == gridColumns && f.id.hasPrefix(row + ".") ? row : nil
        }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }

        let listed = result.fields.filter { f in !gridRows.contains { f.id.hasPrefix($0 + ".") } || gridColumns == nil }
        let width = listed.map(\.id.count).max() ?? 0
        for (id, r) in listed {
            lines.append("  " + id.padding(toLength: width + 2, withPad: " ", startingAt: 0) + cell(r, width: 0))
        }
        if let gridColumns, !gridRows.isEmpty {
            let w = max(9, (gridColumns.map(\.count).max() ?? 0) + 2)
            let rowWidth = (gridRows.map(\.count).max() ?? 0) + 2
            lines.append("  " + "".padding(toLength: rowWidth, withPad: " ", startingAt: 0)
                         + gridColumns.map { $0.padding(toLength: w, withPad: " ", startingAt: 0) }.joined())
            for row in gridRows {
                var line = "  " + row.padding(toLength: rowWidth, withPad: " ", startingAt: 0)
                for col in gridColumns {
                    if let r = result.reading("\(row).\(col)") { line += cell(r, width: w) }
                }
                lines.append(line)
            }
        }
        let flagged = result.fields.filter(\.reading.flagged)
        if !flagged.isEmpty {
            lines.append("  flagged for review: " + flagged.map { f in
                "\(f.id) (\(Int(f.reading.confidence.rounded()))%\(f.reading.notes.isEmpty ? "" : ": " + f.reading.notes.joined(separator: "; ")))"
            }.joined(separator: ", "))
        }
        for failure in result.ruleFailures {
            lines.append("  rule \(failure.rule): \(failure.message) (\(failure.detail))")
        }
        for s in result.suggestions {
            let changes = s.changes.map { "\($0.field) \($0.from) → \($0.to)" }.joined(separator: ", ")
            lines.append(String(format: "  suggestion (not applied; probability %.2f): %@", s.probability, changes))
        }
        if let note = result.suggestionNote { lines.append("  \(note)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// "12" for a confident reading, "12?" for a flagged one, padded to `width`.
    private func cell(_ r: FieldReading, width: Int) -> String {
        let text = r.value == .empty ? "·" : r.value.description
        let mark = r.flagged ? "?" : ""
        let s = text + mark
        return width > 0 ? s.padding(toLength: max(width, s.count + 1), withPad: " ", startingAt: 0) : s
    }
}
