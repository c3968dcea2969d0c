/// Finds ink that looks struck through with a level line: a straight stroke across the glyph whose two
/// ends run free past the rest of the ink, with the rest reaching well above and below it.
///
/// The digit network reads an X or a scribble as "not a digit", but one level line through a 3 leaves a
/// digit-like shape (read as 8, confidently), so the reader never looked for the number written again
/// beside the boxes. This is the cue to look there. It is only a hint: at phone resolution a pen stroke
/// is a fifth of a digit's height, and a 4 whose crossbar runs past both of its strokes, or a crossed 7,
/// looks the same. The reader therefore takes the number beside the boxes only when one is written
/// there, and never lowers a reading on this hint alone.
///
/// Written by hand rather than with Leptonica's line openings: those find long straight runs in a page,
/// while this asks a geometric question of one glyph's small mask, already in Swift memory.
public struct StrikeThrough: Sendable {
    /// The steepest a strike is looked for at (rise over run): a hand's level line wanders this much.
    public var maxSlope = 0.2
    /// A strike covers at least this share of the glyph's width: it is usually the widest stroke.
    public var minRunShare = 0.75
    /// How far each free end runs past the rest of the ink, as a share of the glyph's width (3 pixels at
    /// least). Keepers' strikes overshoot by about a seventh of the number's width.
    public var minOverhangShare = 0.1
    /// How far the rest of the ink reaches above and below the line, as a share of the glyph's height:
    /// a 7's bar or a 2's base, with ink on one side only, is no strike.
    public var minReachShare = 0.25

    public init() {}

    /// Whether `glyph` looks struck through with a level line.
    public func isStruckThrough(_ glyph: Glyph) -> Bool {
        let w = glyph.bounds.width, h = glyph.bounds.height
        guard w >= 8, h >= 8 else { return false }
        let ink = glyph.ink
        let stroke = HandwrittenDigitReader.strokeWidth(ink, width: w, height: h)
        // Rows each side of a line's centre that its stroke may cover.
        let halfBand = Int((stroke / 2 + 1.5).rounded())
        let runs = Self.verticalRuns(ink, width: w, height: h)
        let thin = 2 * halfBand + 1
        let minRun = Int((minRunShare * Double(w)).rounded(.up))
        let overhang = max(3, Int((minOverhangShare * Double(w)).rounded(.up)))
        let reach = minReachShare * Double(h)
        let steps = 8
        for step in -steps...steps {
            let slope = maxSlope * Double(step) / Double(steps)
            for middleRow in 0..<h {
                func center(_ x: Int) -> Double { Double(middleRow) + slope * Double(x - w / 2) }
                func onLine(_ x: Int) -> Bool {
                    runs[x].contains { Double($0.bottom) >= center(x) - Double(halfBand) && Double($0.top) <= center(x) + Double(halfBand) }
                }
                // A free end: the column holds only thin runs (strokes crossing it), one of them the line.
                func free(_ x: Int) -> Bool { onLine(x) && runs[x].allSatisfy { $0.bottom - $0.top + 1 <= thin } }
                // The line's columns, from its left end, bridging gaps of two columns (a cleaned divider). The widest
                // stroke reaches the glyph's edges: the line starts in its first two columns, and ends in its last two.
                var a = 0
                while a < 2 && !onLine(a) { a += 1 }
                guard a <= 1 else { continue }
                var b = a, x = a
                while x < w {
                    if onLine(x) { b = x } else if x - b > 2 { break }
                    x += 1
                }
                guard b >= w - 2, b - a + 1 >= minRun else { continue }
                var left = 0, right = 0
                while a + left <= b && free(a + left) { left += 1 }
                while b - right >= a && free(b - right) { right += 1 }
                guard left >= overhang, right >= overhang, a + left <= b - right else { continue }
                // The rest of the ink crosses the line: it reaches well above and below it between the ends.
                var up = 0.0, down = 0.0
                for x in (a + left)...(b - right) {
                    for run in runs[x] {
                        up = max(up, center(x) - Double(run.top))
                        down = max(down, Double(run.bottom) - center(x))
                    }
                }
                if up >= reach, down >= reach { return true }
            }
        }
        return false
    }

    /// Each column's ink as vertical runs, top to bottom (rows inclusive).
    static func verticalRuns(_ ink: [Float], width w: Int, height h: Int) -> [[(top: Int, bottom: Int)]] {
        (0..<w).map { x in
            var runs: [(top: Int, bottom: Int)] = []
            var y = 0
            while y < h {
                guard ink[y * w + x] > 0 else { y += 1; continue }
                let top = y
                while y < h && ink[y * w + x] > 0 { y += 1 }
                runs.append((top, y - 1))
            }
            return runs
        }
    }
}
