import OCRKit
import SheetModel

/// Finds each field's printed box lines near where a mapping puts them: the landmarks the page's shape is
/// fitted to (`PageWarp`), and the check, once it is fitted, that every box is where its cell will be cut.
///
/// A field's lines are looked for together, as the comb the template prints (top and bottom; left side,
/// dividers and right side), so a neighbour's line at the same distance as the error cannot stand in for
/// one of them; each is then placed alone within a point or so of the comb. Profiles are averaged along the
/// line, so handwriting, which crosses a line over a few points, hardly moves them.
struct PrintedLineFinder {
    /// How far (points) from where the mapping puts them the lines are looked for.
    var search: Double
    /// Pixels per point the field's surroundings are resampled at.
    var scale: Double
    /// Horizontal lines are measured in stretches about this long (points), so a line bent across a
    /// wide field gives one sample per stretch.
    var stretch = 48.0

    /// What was found of one field's lines.
    struct FieldLines {
        let field: String
        /// One per line (or stretch of one) found; offsets are the whole displacement from the homography.
        var samples: [PageWarp.Sample]
        /// Lines (or stretches) looked for.
        var expected: Int
        /// Whether where the lines were found says where the box is. Not for a checkbox: a filled mark
        /// is a square of nearly its size, whose edges pass for its lines (printed sheets' ticked boxes
        /// were found 3–5 points off); only its lines going missing (folded under, torn off) counts.
        var placeTells = true
    }

    func find(in image: GrayBuffer, template: SheetTemplate, mapping: PageMapping) -> [FieldLines] {
        template.fields.map { find($0, in: image, mapping: mapping) }
    }

    func find(_ field: FieldSpec, in image: GrayBuffer, mapping: PageMapping) -> FieldLines {
        let r = field.rect
        let margin = search + 2
        let area = image.resample(r, margin: margin, scale: scale, through: mapping)
        let w = area.width, h = area.height
        let (paper, black) = Self.paperAndInk(area)
        let contrast = paper - black
        let origin = Point(x: r.x - margin, y: r.y - margin)
        var samples: [PageWarp.Sample] = []
        var expected = 0
        guard contrast > 30 else {
            let parts = max(1, Int((r.width / stretch).rounded()))
            return FieldLines(field: field.id, samples: [], expected: 2 * parts + field.boxes.count + 1,
                              placeTells: field.kind != .checkbox)
        }
        func pixel(_ t: Double, _ o: Double) -> Double { (t - o) * scale - 0.5 }
        let ink = Int(paper)

        // Horizontal lines, stretch by stretch.
        let parts = max(1, Int((r.width / stretch).rounded()))
        for p in 0..<parts {
            let x0 = r.x + r.width * Double(p) / Double(parts) + 3, x1 = r.x + r.width * Double(p + 1) / Double(parts) - 3
            let i0 = max(0, Int(pixel(x0, origin.x))), i1 = min(w - 1, Int(pixel(x1, origin.x)))
            guard i1 > i0 else { continue }
            let profile = area.pixels.withUnsafeBufferPointer { px in
                (0..<h).map { j -> Double in
                    var sum = 0
                    for i in i0...i1 { sum += max(0, ink - Int(px[j * w + i])) }
                    return Double(sum) / Double(i1 - i0 + 1)
                }
            }
            let lines = [r.y, r.maxY]
            expected += lines.count
            let x = (x0 + x1) / 2
            for (y, t) in place(lines.map { pixel($0, origin.y) }, in: profile, contrast: contrast) {
                let at = Point(x: x, y: lines[y])
                let base = mapping.displacement(at: Point(x: at.x, y: at.y + t)).y
                samples.append(PageWarp.Sample(at: at, axis: .y, offset: t + base))
            }
        }
        // Vertical lines: the left side and each box's right edge.
        let lines = [r.x] + field.boxes.map(\.maxX)
        expected += lines.count
        let j0 = max(0, Int(pixel(r.y + 3, origin.y))), j1 = min(h - 1, Int(pixel(r.maxY - 3, origin.y)))
        if j1 > j0 {
            let profile = area.pixels.withUnsafeBufferPointer { px -> [Double] in
                var sums = [Int](repeating: 0, count: w)
                for j in j0...j1 { for i in 0..<w { sums[i] += max(0, ink - Int(px[j * w + i])) } }
                return sums.map { Double($0) / Double(j1 - j0 + 1) }
            }
            for (k, t) in place(lines.map { pixel($0, origin.x) }, in: profile, contrast: contrast) {
                let at = Point(x: lines[k], y: r.center.y)
                let base = mapping.displacement(at: Point(x: at.x + t, y: at.y)).x
                samples.append(PageWarp.Sample(at: at, axis: .x, offset: t + base))
            }
        }
        return FieldLines(field: field.id, samples: samples, expected: expected, placeTells: field.kind != .checkbox)
    }

    /// The paper's brightness (90th percentile) and the ink's (1st), from every third pixel: as
    /// `GrayBuffer.percentile` says, for a third of the work.
    static func paperAndInk(_ area: GrayBuffer) -> (Double, Double) {
        var histogram = [Int](repeating: 0, count: 256)
        var n = 0
        area.pixels.withUnsafeBufferPointer { px in
            var k = 0
            while k < px.count { histogram[Int(px[k])] += 1; n += 1; k += 3 }
        }
        func level(_ fraction: Double) -> Double {
            let target = Int(Double(n) * fraction)
            var seen = 0
            for (value, count) in histogram.enumerated() {
                seen += count
                if seen > target { return Double(value) }
            }
            return 255
        }
        return (level(0.9), level(0.01))
    }

    /// The comb of lines expected at `positions` (pixels) in `profile`: its best shift within the search,
    /// then each line alone within 1.5 points of it. Returns, for each line found, its index and offset in
    /// points. A line is found where its profile stands out from the search window's paper by a fifth of
    /// the ink's contrast.
    func place(_ positions: [Double], in profile: [Double], contrast: Double) -> [(Int, Double)] {
        func at(_ x: Double) -> Double {
            let i = Int(x.rounded(.down)), f = x - Double(i)
            guard i >= 0, i + 1 < profile.count else { return 0 }
            return profile[i] * (1 - f) + profile[i + 1] * f
        }
        let reach = Int((search * scale).rounded())
        var bestShift = 0, bestScore = -1.0
        for s in -reach...reach {
            let score = positions.reduce(0) { $0 + at($1 + Double(s)) }
            if score > bestScore || (score == bestScore && abs(s) < abs(bestShift)) { bestScore = score; bestShift = s }
        }
        // The paper's level in the window: its lower quartile, since a ticked box's mark or a digit's
        // strokes can darken half of a small field's window.
        let floor = profile.sorted()[profile.count / 4]
        let near = max(1, Int((1.5 * scale).rounded()))
        var found: [(Int, Double)] = []
        for (k, position) in positions.enumerated() {
            let centre = Int(position.rounded()) + bestShift
            var peak = -1, value = -1.0
            for i in (centre - near)...(centre + near) where i > 0 && i + 1 < profile.count {
                if profile[i] > value { value = profile[i]; peak = i }
            }
            guard peak > 0, value - floor >= 0.2 * contrast else { continue }
            // Sub-pixel: the parabola through the peak and its neighbours.
            let a = profile[peak - 1], b = profile[peak], c = profile[peak + 1]
            let denominator = a - 2 * b + c
            let refined = Double(peak) + (denominator < 0 ? 0.5 * (a - c) / denominator : 0)
            found.append((k, (refined - position) / scale))
        }
        return found
    }
}
