import SheetModel

/// Turns what was found on a blank form into a draft template: one field per cell, numbered by row then
/// column, its kind guessed from its shape and its label from the printed word beside it.
struct DraftTemplate {
    /// A printed word on the upright page, in points.
    struct Word {
        let text: String
        let rect: Rect
    }

    var id: String
    var title: String
    var page: PageSize

    func make(cells: [Rect], lines: [Landmark], words: [Word]) -> SheetTemplate {
        let ordered = Self.readingOrder(cells.filter { !Self.holdsPrint($0, words: words) })
        let fields = ordered.enumerated().map { index, rect in
            let kind = Self.kind(of: rect)
            return FieldSpec(id: "box-\(index + 1)", kind: kind, rect: rect,
                             label: Self.label(for: rect, kind: kind, words: words, cells: ordered))
        }
        var template = SheetTemplate(id: id, version: 1, title: title, page: page, fields: fields)
        template.printedElsewhere = true
        template.landmarks = Self.onPage(lines, page: page)
        return template
    }

    /// A box with a printed word inside it is a heading or a row's name, not room to write: a writable box
    /// is empty on a blank form. A word is one of two characters or more with a letter ("Q1", "Total"), so
    /// a comb's printed tick read as "1" or "l" does not make a box print; it is inside when most of it is.
    static func holdsPrint(_ cell: Rect, words: [Word]) -> Bool {
        words.contains { word in
            guard word.text.count >= 2, word.text.contains(where: \.isLetter) else { return false }
            guard let inside = cell.intersection(word.rect) else { return false }
            return inside.width * inside.height >= 0.8 * word.rect.width * word.rect.height
        }
    }

    /// Rows top to bottom, each left to right. A cell starts a new row when its middle is below the row's
    /// first cell by more than half the smaller of their heights: a row's cells need not share a top line.
    static func readingOrder(_ cells: [Rect]) -> [Rect] {
        var rows: [[Rect]] = []
        for cell in cells.sorted(by: { $0.center.y < $1.center.y }) {
            if let first = rows.last?.first, cell.center.y - first.center.y <= min(first.height, cell.height) / 2 {
                rows[rows.count - 1].append(cell)
            } else {
                rows.append([cell])
            }
        }
        return rows.flatMap { $0.sorted { $0.x < $1.x } }
    }

    /// A small square is a checkbox; a box much wider than tall and wide enough for a name holds text;
    /// anything else (a table's cell, a digit box) a count, which a person changes when it is a date.
    static func kind(of rect: Rect) -> FieldKind {
        let aspect = rect.width / rect.height
        if rect.width <= 18 && rect.height <= 18 && aspect >= 0.75 && aspect <= 1 / 0.75 { return .checkbox }
        if rect.width > 3 * rect.height && rect.width > 120 { return .text }
        return .count
    }

    /// The printed words nearest the box on one line: above it (a heading), or left of it (a row's name);
    /// right of it first for a checkbox. Only words with no other cell between them and the box.
    static func label(for rect: Rect, kind: FieldKind, words: [Word], cells: [Rect]) -> String? {
        func clear(_ gap: Rect) -> Bool {
            !cells.contains { $0 != rect && $0.intersects(gap) }
        }
        func line(_ chosen: [Word]) -> String? {
            let text = chosen.sorted { $0.rect.x < $1.rect.x }.map(\.text).joined(separator: " ")
            return text.isEmpty ? nil : text
        }
        // Above: words starting over the box, whose bottom is at most 24 points above its top.
        let above = words.filter { w in
            w.rect.maxY <= rect.y + 1 && rect.y - w.rect.maxY <= 24 && w.rect.x >= rect.x - 6 && w.rect.x < rect.maxX
                && clear(Rect(x: max(rect.x, w.rect.x), y: w.rect.maxY, width: max(1, min(rect.maxX, w.rect.maxX) - max(rect.x, w.rect.x)),
                              height: max(0.1, rect.y - w.rect.maxY - 0.5)))
        }
        // The heading is the nearest line's phrase that starts over the box, with the rest of its words: a
        // comb's later digit boxes, under the middle of "Date (MM DD YY)", get none.
        let aboveLine = above.max { $0.rect.maxY < $1.rect.maxY }.flatMap { nearest -> [Word]? in
            let sameLine = { (w: Word) in abs(w.rect.center.y - nearest.rect.center.y) <= max(3, nearest.rect.height / 2) }
            let line = words.filter(sameLine)
            let starts = above.filter { s in sameLine(s) && !line.contains { $0.rect.maxX < s.rect.x && s.rect.x - $0.rect.maxX <= gapInPhrase(s) } }
            guard let first = starts.min(by: { $0.rect.x < $1.rect.x }) else { return nil }
            var chain = [first]
            while let end = chain.last, let next = line.first(where: { $0.rect.x > end.rect.maxX && $0.rect.x - end.rect.maxX <= gapInPhrase(end) }) {
                chain.append(next)
            }
            return chain
        }
        // Beside: words whose middle is within the box's height, the nearest within `reach` and the words
        // chained to it on the same side.
        func beside(right: Bool, reach: Double) -> [Word]? {
            let candidates = words.filter { w in
                w.rect.center.y >= rect.y - 2 && w.rect.center.y <= rect.maxY + 2
                    && (right ? w.rect.x >= rect.maxX - 1 && w.rect.x - rect.maxX <= reach
                              : w.rect.maxX <= rect.x + 1 && rect.x - w.rect.maxX <= reach)
            }
            guard let nearest = candidates.min(by: { right ? $0.rect.x < $1.rect.x : $0.rect.maxX > $1.rect.maxX }) else { return nil }
            let gap = right ? Rect(x: rect.maxX, y: rect.y, width: max(0.1, nearest.rect.x - rect.maxX), height: rect.height)
                            : Rect(x: nearest.rect.maxX, y: rect.y, width: max(0.1, rect.x - nearest.rect.maxX), height: rect.height)
            guard clear(gap) else { return nil }
            var chain = [nearest]
            let sameLine = words.filter { abs($0.rect.center.y - nearest.rect.center.y) <= nearest.rect.height / 2 }
            while let end = chain.last, let next = sameLine.first(where: { w in
                right ? w.rect.x > end.rect.maxX && w.rect.x - end.rect.maxX <= gapInPhrase(end)
                      : w.rect.maxX < end.rect.x && end.rect.x - w.rect.maxX <= gapInPhrase(end)
            }) {
                chain.append(next)
            }
            return chain
        }
        // A checkbox's words are beside it, most often to its right; the words to its left are then the
        // previous box's.
        if kind == .checkbox { return beside(right: true, reach: 14).flatMap(line) ?? aboveLine.flatMap(line) }
        if let aboveLine { return line(aboveLine) }
        return beside(right: false, reach: 72).flatMap(line)
    }

    /// Words of one phrase are at most about a space apart: half the words' height.
    static func gapInPhrase(_ word: Word) -> Double { max(3, word.rect.height * 0.6) }

    /// The lines clipped to the page and at least 12 points long, as a template's landmarks must be.
    static func onPage(_ lines: [Landmark], page: PageSize) -> [Landmark] {
        lines.compactMap { l in
            let x0 = min(max(0, l.from[0]), page.width), y0 = min(max(0, l.from[1]), page.height)
            let x1 = min(max(0, l.to[0]), page.width), y1 = min(max(0, l.to[1]), page.height)
            guard abs(x1 - x0) + abs(y1 - y0) >= 12 else { return nil }
            return Landmark(from: [x0, y0], to: [x1, y1])
        }
        .sorted { ($0.from[1], $0.from[0], $0.to[1]) < ($1.from[1], $1.from[0], $1.to[1]) }
    }
}
