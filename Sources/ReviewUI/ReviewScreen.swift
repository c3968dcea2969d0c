import Foundation
import SheetModel
import SheetStore

/// Draws a `ReviewState` on a `width × height` canvas: a pure function of the state, so it is tested
/// and benchmarked without a terminal. Laid out for 80×24 and up:
///
///     row 0        title: sheet k of n, reviewer
///     rows 1–2     file, template; date/opponent/athlete as they stand
///     rows 3…h-6   left: the current field's cell image; right: the field (reading, confidence,
///                  alternatives, suggestion) and a map of the sheet's fields with the current one marked
///     rows h-5…h-1 failing rules, flagged fields, message, keys or the prompt being typed
public enum ReviewScreen {
    public static let keysLine = "↑↓/jk field  ←→ sheet  ⏎ accept  e edit  s suggest  u undo  a approve  r reject  ? help  q quit"

    public static func render(_ state: ReviewState, width: Int, height: Int, color: Bool) -> Canvas {
        var canvas = Canvas(width: width, height: height)
        let w = canvas.width, h = canvas.height
        drawTitle(state, into: &canvas)
        guard let review = state.review else {
            canvas.put("Nothing waits for review: every stored sheet is decided.", row: min(2, h - 1), column: 2)
            canvas.put("Scan more sheets with 'statsheet scan', then run 'statsheet review' again.", row: min(3, h - 1), column: 2)
            drawFooter(state, into: &canvas, color: color)
            return canvas
        }
        canvas.put("file  " + review.sheet.source.description, row: 1, column: 1)
        // A probable duplicate is approved only by a person who has seen that it may be one.
        if let duplicate = review.gameLog?.duplicateOf {
            let warning = "  ! probable duplicate of game log \(duplicate)"
            canvas.put(warning, row: 1, column: max(7 + min(review.sheet.source.description.count, 30), canvas.width - warning.count), style: .warning)
        }
        drawMetadata(state, review: review, into: &canvas)
        let top = 3, bottom = h - 5
        let middle = max(0, bottom - top)
        if state.mode == .help {
            drawHelp(into: &canvas, top: top, rows: middle)
        } else if middle > 0 {
            let left = max(20, w / 2)
            drawCell(state, into: &canvas, top: top, rows: middle, columns: left - 1, color: color)
            drawField(state, into: &canvas, top: top, column: left + 1, width: w - left - 1, rows: middle, color: color)
        }
        drawRules(state, review: review, into: &canvas, row: h - 5, color: color)
        drawFooter(state, into: &canvas, color: color)
        return canvas
    }

    // MARK: Parts

    private static func drawTitle(_ state: ReviewState, into canvas: inout Canvas) {
        var title = " statsheet review"
        if let review = state.review {
            title += " — sheet \(state.position + 1) of \(state.queue.count) (#\(review.sheet.id), revision \(review.revision))"
        }
        let right = "reviewer \(state.reviewer)  ? help "
        canvas.put(title, row: 0, style: .reverse)
        canvas.style(row: 0, column: 0, count: canvas.width, .reverse)
        canvas.put(right, row: 0, column: max(title.count + 1, canvas.width - right.count), style: .reverse)
    }

    private static func drawMetadata(_ state: ReviewState, review: SheetReview, into canvas: inout Canvas) {
        var parts = ["\(review.sheet.templateID) v\(review.sheet.templateVersion)"]
        if let spec = state.template?.gameLog {
            let values = review.values
            // A box score's log is its team's (`role` team), a goalie sheet's its athlete's.
            for (label, id) in [("date", spec.date), ("opponent", spec.opponent), (spec.players == nil ? "athlete" : "team", spec.athlete)] {
                guard let id else { continue }
                parts.append("\(label) \(values[id]?.description ?? "—")")
            }
        }
        canvas.put(parts.joined(separator: " · "), row: 2, column: 1)
    }

    private static func drawCell(_ state: ReviewState, into canvas: inout Canvas, top: Int, rows: Int, columns: Int, color: Bool) {
        guard let field = state.currentField else { return }
        canvas.put("cell \(field.field)", row: top, column: 1, style: .bold, limit: columns - 1)
        guard rows > 1 else { return }
        if let image = state.image {
            HalfBlocks.draw(image, into: &canvas, row: top + 1, column: 1, columns: columns - 1, rows: rows - 1, color: color)
        } else {
            canvas.put("(no image of this cell: not stored, and the file could not be read)", row: top + 2, column: 1, style: .dim, limit: columns - 1)
        }
    }

    private static func drawField(_ state: ReviewState, into canvas: inout Canvas, top: Int, column: Int, width: Int, rows: Int, color: Bool) {
        guard let field = state.currentField, let review = state.review, width > 4 else { return }
        let reading = field.stored.reading
        var lines: [(String, Canvas.Style)] = []
        let flag = reading.flagged ? "  FLAGGED" : ""
        lines.append(("field \(state.fieldIndex + 1)/\(review.fields.count): \(field.field) (\(field.stored.kind.rawValue))\(flag)",
                      reading.flagged ? .warning : .bold))
        // A value the sums chose, or the scan filled in from the suggestion, is not what the digits read:
        // it says so, with the digits' text, until a person confirms it.
        let fromSums = reading.inkValue != nil
        let sure = "\(Int(reading.confidence.rounded()))% sure"
        lines.append((fromSums ? "sums   \(reading.value)  (the digits read \"\(reading.text)\")  \(sure)"
                               : "read   \(reading.value)  \"\(reading.text)\"  \(sure)", .plain))
        if let c = field.correction {
            lines.append(("now    \(c.newValue)  by \(c.reviewer)" + (c.note.map { " — \($0)" } ?? ""), .good))
        } else if fromSums {
            lines.append(("now    unconfirmed: Enter confirms it, e types another", .warning))
        } else {
            lines.append(("now    as read", .dim))
        }
        let alternatives = reading.alternatives.prefix(4).map { "\($0.value) \(Int(($0.probability * 100).rounded()))%" }
        lines.append(("alts   " + (alternatives.isEmpty ? "none" : alternatives.joined(separator: ", ")), .plain))
        if let s = state.suggestion {
            let changes = s.changes.map { "\($0.field) \($0.from)→\($0.to)" }.joined(separator: ", ")
            lines.append(("sugg.  \(changes)", .good))
            // A suggestion that mends only some broken rules says which it leaves (`SuggestionOutcome.partial`).
            if let note = state.suggestionNote { lines.append(("       \(note)", .dim)) }
        } else if let note = state.suggestionNote {
            lines.append(("sugg.  none: \(note)", .dim))
        }
        // Why the field is flagged is what the reviewer reads first: each note whole, wrapped, not cut at the edge.
        for (k, note) in reading.notes.enumerated() {
            for (j, part) in Self.wrapped(note, width: max(10, width - 7)).enumerated() {
                lines.append(((k == 0 && j == 0 ? "notes  " : "       ") + part, .dim))
            }
        }
        var row = top
        for (text, style) in lines where row < top + rows {
            canvas.put(text, row: row, column: column, style: style, limit: width)
            row += 1
        }
        if row < top + rows - 2 {
            drawMap(state, into: &canvas, top: row + 1, column: column, width: width, rows: top + rows - row - 1, color: color)
        }
    }

    /// The sheet's fields as a small grid, one mark per field placed by the rank of its row and column
    /// on the page: `@` current, `!` flagged and unsettled, `?` in a failing rule, `*` corrected, `·` other.
    private static func drawMap(_ state: ReviewState, into canvas: inout Canvas, top: Int, column: Int, width: Int, rows: Int, color: Bool) {
        guard let review = state.review, rows > 0 else { return }
        let cells = review.fields.map(\.stored.cell)
        let rowOf = ranks(cells.map { $0.y + $0.height / 2 }, tolerance: 8, limit: rows)
        let columnOf = ranks(cells.map { $0.x + $0.width / 2 }, tolerance: 8, limit: max(1, width / 2))
        let failing = state.failingFields
        for (i, field) in review.fields.enumerated() {
            let (mark, style): (Character, Canvas.Style) =
                if i == state.fieldIndex { ("@", color ? Canvas.Style(bold: true, reverse: true) : .plain) }
                else if field.stored.reading.flagged && !ReviewState.isSettled(field) { ("!", .warning) }
                else if failing.contains(field.field) { ("?", .warning) }
                else if field.correction != nil { ("*", .good) }
                else { ("·", .dim) }
            let r = top + rowOf[i], c = column + 2 * columnOf[i]
            guard r < canvas.height, c < canvas.width else { continue }
            // A field sharing a spot with the current one must not hide it.
            if canvas[r, c].0 == "@" { continue }
            canvas[r, c] = (mark, style)
        }
    }

    /// Each value's rank among the distinct values (those within `tolerance` are one), scaled down
    /// to fit under `limit` when there are more.
    static func ranks(_ values: [Double], tolerance: Double, limit: Int) -> [Int] {
        var levels: [Double] = []
        for v in values.sorted() where levels.last.map({ v - $0 > tolerance }) ?? true { levels.append(v) }
        return values.map { v in
            let rank = levels.lastIndex { $0 <= v + 1e-9 } ?? 0
            return levels.count <= limit ? rank : rank * limit / levels.count
        }
    }

    private static func drawRules(_ state: ReviewState, review: SheetReview, into canvas: inout Canvas, row: Int, color: Bool) {
        if state.failures.isEmpty {
            canvas.put("✓ every rule holds", row: row, column: 1, style: .good)
        } else {
            let first = state.failures[0]
            canvas.put("✗ \(state.failures.count) rule\(state.failures.count == 1 ? "" : "s") fail: \(first.rule): \(first.message) — \(first.detail)",
                       row: row, column: 1, style: .warning)
            if state.failures.count > 1 {
                let rest = state.failures.dropFirst().map(\.rule).joined(separator: ", ")
                canvas.put("  also: " + rest, row: row + 1, column: 1, style: .warning)
            }
        }
        let flagged = review.fields.filter { $0.stored.reading.flagged }
        let open = flagged.filter { !ReviewState.isSettled($0) }.map(\.field)
        let summary = flagged.isEmpty ? "no flagged fields"
            : "flagged \(flagged.count), open \(open.count)" + (open.isEmpty ? "" : ": " + open.joined(separator: " "))
        canvas.put(summary, row: row + 2, column: 1)
    }

    private static func drawFooter(_ state: ReviewState, into canvas: inout Canvas, color: Bool) {
        let h = canvas.height
        if let message = state.message {
            canvas.put(message, row: h - 2, column: 1, style: state.messageIsWarning ? .warning : .bold)
        }
        let prompt: String? = switch state.mode {
        case .editing(let text): "new value for \(state.currentField?.field ?? "?") (\(state.currentField?.stored.kind.rawValue ?? "")) [# note]: \(text)_"
        case .rejecting(let text): "reject: why? \(text)_"
        case .overriding(let text):
            state.failures.isEmpty
                ? "unconfirmed numbers the ink did not give (\(state.unconfirmedNotFromInk.joined(separator: " "))) — approve anyway because: \(text)_"
                : "rules fail — approve anyway because: \(text)_"
        case .browsing, .help: nil
        }
        if let prompt {
            canvas.put(prompt + "   (Enter saves, Esc cancels)", row: h - 1, column: 0, style: .bold)
        } else {
            canvas.put(keysLine, row: h - 1, column: 0, style: .dim)
        }
    }

    private static let help = [
        "Keys",
        "  ↑ ↓  j k     previous / next field        Tab n   next open flagged field",
        "  ← →  h l     previous / next sheet (skipping leaves a sheet in the queue)",
        "  Enter        accept the field as read (recorded)",
        "  e            type a new value; '-' or nothing empties it; '12 # smudge' adds a note",
        "  s            take the suggestion: the likeliest alternatives that mend the broken rules",
        "  u            undo the last change on this sheet (kept on record as undone)",
        "  a            approve: the game log takes the corrected values; failing rules, or",
        "               unconfirmed numbers the sums chose or filled in, need a reason (recorded)",
        "  r            reject the sheet with a reason      q  quit (everything is saved)",
        "Every change is saved at once with the original reading, your name and the time.",
        "Press any key to go back.",
    ]

    private static func drawHelp(into canvas: inout Canvas, top: Int, rows: Int) {
        for (i, line) in help.prefix(rows).enumerated() {
            canvas.put(line, row: top + i, column: 1, style: i == 0 ? .bold : .plain)
        }
    }

    /// `text` in lines of at most `width` characters, broken at spaces (a word longer than a line is cut).
    static func wrapped(_ text: String, width: Int) -> [String] {
        let width = max(1, width)
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            var word = String(word)
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            while word.count > width {
                lines.append(String(word.prefix(width)))
                word = String(word.dropFirst(width))
            }
            line += line.isEmpty ? word : " " + word
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}
