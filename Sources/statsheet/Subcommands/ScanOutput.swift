import Foundation
import SheetModel
import SheetPipeline
import SheetStore

/// Prints scan results: JSON lines for programs, tables for people.
struct ScanOutput {
    let json: Bool
    let library: TemplateLibrary

    func show(_ result: SheetResult) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            if let data = try? encoder.encode(result) { print(TerminalText.asciiSafeJSON(String(decoding: data, as: UTF8.self))) }
            return
        }
        print(table(result))
    }

    /// A file whose content is already stored: one line, or one JSON object with the stored status.
    func showAlreadyStored(source: SheetSource, sha256: String, state: StoredSheetState) {
        if json {
            var object: [String: Any] = ["file": source.path, "sha256": sha256, "status": state.status.rawValue,
                                         "already_stored": true, "sheet_id": state.id]
            if let page = source.page { object["page"] = page }
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) {
                print(TerminalText.asciiSafeJSON(String(decoding: data, as: UTF8.self)))
            }
            return
        }
        print(TerminalText.escaped("\(source): already in the store (sheet \(state.id), \(state.status.rawValue))"))
    }

    /// Each line escaped on its own: file names and text read from a sheet are untrusted (TerminalText).
    func table(_ result: SheetResult) -> String {
        var lines: [String] = []
        guard result.status != .failed else {
            return TerminalText.escaped("\(result.source): FAILED — \(result.error ?? "unknown error")") + "\n"
        }
        var heading = "\(result.source) — \(result.template ?? "?") v\(result.templateVersion ?? 0) — \(result.status.rawValue)"
        if let a = result.alignment {
            heading += String(format: " (alignment %.0f%%, %.0f ms)", a.quality * 100, result.milliseconds)
        }
        lines.append(heading)

        // Fields named ROW.COLUMN whose rows share the same columns print as a grid; the rest as a list.
        let ids = result.fields.map { FieldID($0.id) }
        let groups = Dictionary(grouping: ids.filter { $0.row != nil }) { $0.row! }
        let columnsOf = groups.mapValues { $0.compactMap(\.column) }
        let gridColumns = columnsOf.values.first { cols in columnsOf.values.filter { $0 == cols }.count >= 2 && cols.count >= 2 }
        let gridRows = ids.compactMap { id -> String? in
            guard let row = id.row else { return nil }
            return columnsOf[row] == gridColumns ? row : nil
        }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }

        let listed = result.fields.filter { f in gridColumns == nil || !(FieldID(f.id).row.map(gridRows.contains) ?? false) }
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
                    if let r = result.reading(FieldID(row: row, column: col).rawValue) { line += cell(r, width: w) }
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
            lines.append("  rule \(failure.rule)\(failure.severity == .warning ? " (warning)" : ""): \(failure.message) (\(failure.detail))")
        }
        for s in result.suggestions {
            let changes = s.changes.map {
                // Filled in when the field now holds the suggested value (SheetScanner: handwriting, two sums).
                let filled = result.reading($0.field)?.value == $0.to
                return "\($0.field) \($0.from) → \($0.to)" + ($0.demandedByRules == true ? " (not among the reader's alternatives: the sums demand it)" : "")
                    + (filled ? " [filled in, flagged]" : " [not applied]")
            }.joined(separator: ", ")
            lines.append(String(format: "  suggestion (probability %.2f): %@", s.probability, changes))
        }
        if let note = result.suggestionNote { lines.append("  \(note)") }
        return lines.map(TerminalText.escaped).joined(separator: "\n") + "\n"
    }

    /// "12" for a confident reading, "12?" for a flagged one, padded to `width`.
    private func cell(_ r: FieldReading, width: Int) -> String {
        let text = r.value == .empty ? "·" : r.value.description
        let mark = r.flagged ? "?" : ""
        let s = text + mark
        return width > 0 ? s.padding(toLength: max(width, s.count + 1), withPad: " ", startingAt: 0) : s
    }
}

/// What one `scan` did, printed as its last lines.
struct ScanSummary {
    /// Files given or found (with --watch, also those that arrived).
    var files: Int
    let jobs: Int
    /// The store's path, or nil for --dry-run.
    let store: String?
    /// Files in the folders given that were not read for their extension, by extension.
    var skipped: [String: Int] = [:]
    let start = Date()
    var clean = 0, review = 0, failed = 0
    /// Skipped because their content hash was already stored.
    var alreadyStored = 0
    /// Read, then found stored by another process before this one could store them.
    var raced = 0
    var stored = 0, approved = 0, waiting = 0
    /// Already stored and read again (--reread).
    var replaced = 0

    /// The failed sheets by the stage that failed.
    var failedAt: [SheetFailure.Stage: Int] = [:]

    mutating func count(_ scanned: ScannedSheet) {
        switch scanned.result.status {
        case .clean: clean += 1
        case .needsReview: review += 1
        case .failed:
            failed += 1
            failedAt[scanned.failure?.stage ?? .reading, default: 0] += 1
        }
    }

    /// "failed: 2 could not be loaded, 1 could not be aligned"
    static func failedText(_ failedAt: [SheetFailure.Stage: Int]) -> String {
        func words(_ stage: SheetFailure.Stage) -> String {
            switch stage {
            case .load: "could not be loaded"
            case .alignment: "could not be aligned"
            case .reading: "failed while being read"
            }
        }
        return "failed: " + SheetFailure.Stage.allCases.compactMap { stage in failedAt[stage].map { "\($0) \(words(stage))" } }
            .joined(separator: ", ")
    }

    /// "2 files skipped as not images by their extension: 1 .pdf, 1 .txt"
    static func skippedText(_ skipped: [String: Int]) -> String {
        let total = skipped.values.reduce(0, +)
        let kinds = skipped.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            .map { "\($0.value) \($0.key.isEmpty ? "without extension" : "." + $0.key)" }
        return "\(total) file\(total == 1 ? "" : "s") skipped as not images by their extension: " + kinds.joined(separator: ", ")
    }

    var text: String {
        let read = clean + review + failed
        let seconds = Date().timeIntervalSince(start)
        let sheets = read + alreadyStored
        // A file is one sheet unless it is a document of several pages: then both counts are said.
        let counted = sheets == files ? "\(files) sheet\(files == 1 ? "" : "s")"
            : "\(files) file\(files == 1 ? "" : "s"), \(sheets) sheet\(sheets == 1 ? "" : "s")"
        var lines = [String(format: "%@: %d read (%d clean, %d need review, %d failed), %d already in the store — %.1f s, %.1f sheets/s with %d job%@",
                            counted, read, clean, review, failed, alreadyStored + raced, seconds,
                            seconds > 0 ? Double(read) / seconds : 0, jobs, jobs == 1 ? "" : "s")]
        if !failedAt.isEmpty { lines.append(Self.failedText(failedAt)) }
        if !skipped.isEmpty { lines.append(Self.skippedText(skipped)) }
        if let store {
            lines.append("stored in \(store): \(stored) new sheet\(stored == 1 ? "" : "s"), "
                         + (replaced > 0 ? "\(replaced) read again, " : "")
                         + "\(approved) game log\(approved == 1 ? "" : "s") approved, "
                         + "\(waiting) waiting for review ('statsheet sheets'), \(failed) failure\(failed == 1 ? "" : "s") recorded")
        } else {
            lines.append("dry run: nothing stored")
        }
        return lines.map(TerminalText.escaped).joined(separator: "\n")
    }
}

/// A one-line progress bar with rate and time left, redrawn on stderr; only on a terminal.
final class ProgressBar {
    let total: Int
    let enabled: Bool
    private var done = 0
    private let start = Date()

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
    }

    func advance() {
        done += 1
        guard enabled else { return }
        let elapsed = Date().timeIntervalSince(start)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let left = rate > 0 ? Int((Double(total - done) / rate).rounded()) : 0
        let width = 30
        let filled = total > 0 ? width * done / total : width
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let line = String(format: "\r%@ %d/%d  %.1f sheets/s  ETA %d:%02d", bar, done, total, rate, left / 60, left % 60)
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Erases the bar so that a line printed next starts clean; the next `advance` draws it again.
    func clear() {
        guard enabled else { return }
        fflush(nil)
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
