import OCRKit
import SheetModel

/// Finds a blank form's printed boxes and table cells with Leptonica morphology: the long horizontal and
/// vertical runs of ink (opened with long bricks, so print and handwriting go) make the form's grid, and
/// each region of paper the grid closes on four sides is a cell.
struct BoxFinder {
    /// Cells smaller than this either way (points) are not kept: gaps between double lines, the inside
    /// of a letter that happens to be closed.
    var smallestCell = 8.0
    /// Runs shorter than this (points) are not lines: a 10-point label's tallest letters are about 7.5.
    var shortestRun = 7.5
    /// A cell covering more of the page than this is a frame's blank area, not a box to write in.
    var largestShare = 0.15
    /// A region filling less of its bounding box than this is the space between boxes, not a box.
    var rectangularity = 0.9
    /// Lines at least this long (points) are landmarks even when no cell uses them: a frame, a rule.
    var longLine = 36.0

    struct Found {
        /// Each cell's printed box (line centre to line centre), in page points.
        var cells: [Rect]
        /// The form's printed lines, in page points: long lines and the edges of the cells.
        var lines: [Landmark]
    }

    /// `scaleX`, `scaleY`: the page image's pixels per point.
    func find(in page: Image, scaleX: Double, scaleY: Double) throws(ImagingError) -> Found {
        let scale = (scaleX + scaleY) / 2
        let binary = try Self.binarized(page)
        let run = max(4, Int((shortestRun * scale).rounded()))
        let thickening = max(1, Int((0.6 * scale).rounded()))
        // Gaps of up to about 3 points along a line are bridged: a faint line breaks into pieces, and one
        // break lets a cell's paper run into its neighbour's. Boxes printed side by side are further apart.
        let gap = max(2, Int((3 * scale).rounded()))
        let horizontal = try binary.longRuns(horizontal: true, length: run, thickening: thickening).closed(width: gap, height: 1)
        let vertical = try binary.longRuns(horizontal: false, length: run, thickening: thickening).closed(width: 1, height: gap)
        // Not closed across as well: that would join a label's parentheses, tall strokes between a frame and
        // a box close under it, to both and make a cell of the label.
        let grid = try horizontal.union(vertical)
        let paper = try grid.inverted()
        let w = page.width, h = page.height
        let minimumW = Int(0.8 * smallestCell * scaleX), minimumH = Int(0.8 * smallestCell * scaleY)
        let holes = try paper.regions(connectivity: 4) { b in
            b.x > 0 && b.y > 0 && b.maxX < w && b.maxY < h && b.width >= minimumW && b.height >= minimumH
                && Double(b.area) <= largestShare * Double(w * h)
        }
        var cells: [Rect] = []
        for hole in holes where hole.fill >= rectangularity {
            let r = boxAround(hole.bounds, grid: grid, reach: Int(4 * scale) + 2)
            let rect = Rect(x: r.x0 / scaleX, y: r.y0 / scaleY, width: (r.x1 - r.x0) / scaleX, height: (r.y1 - r.y0) / scaleY)
            guard rect.width >= smallestCell, rect.height >= smallestCell else { continue }
            cells.append(rect.rounded(to: 0.1))
        }
        cells = Self.separated(cells)

        // Lines: each long run's component, kept if long or along a cell's edge.
        var lines: [Landmark] = []
        let shortest = 12.0
        for (mask, isHorizontal) in [(horizontal, true), (vertical, false)] {
            let found = try mask.regions(connectivity: 8) { b in
                isHorizontal ? Double(b.width) >= shortest * scaleX && Double(b.height) <= 4 * scaleY
                             : Double(b.height) >= shortest * scaleY && Double(b.width) <= 4 * scaleX
            }
            for region in found {
                let b = region.bounds
                if isHorizontal {
                    let y = ((Double(b.y) + Double(b.height) / 2) / scaleY).rounded(to: 0.1)
                    let x0 = (Double(b.x) / scaleX).rounded(to: 0.1), x1 = (Double(b.maxX) / scaleX).rounded(to: 0.1)
                    let alongCell = cells.contains { (abs($0.y - y) <= 2 || abs($0.maxY - y) <= 2) && $0.x < x1 && x0 < $0.maxX }
                    guard x1 - x0 >= longLine || alongCell else { continue }
                    lines.append(Landmark(from: [x0, y], to: [x1, y]))
                } else {
                    let x = ((Double(b.x) + Double(b.width) / 2) / scaleX).rounded(to: 0.1)
                    let y0 = (Double(b.y) / scaleY).rounded(to: 0.1), y1 = (Double(b.maxY) / scaleY).rounded(to: 0.1)
                    let alongCell = cells.contains { (abs($0.x - x) <= 2 || abs($0.maxX - x) <= 2) && $0.y < y1 && y0 < $0.maxY }
                    guard y1 - y0 >= longLine || alongCell else { continue }
                    lines.append(Landmark(from: [x, y0], to: [x, y1]))
                }
            }
        }
        return Found(cells: cells, lines: lines)
    }

    /// Ink as foreground: uneven light (a photo's shadow, a scanner's gray edge) divided out first.
    static func binarized(_ page: Image) throws(ImagingError) -> Image {
        try page.backgroundNormalized().thresholded(below: 150)
    }

    /// The box's line centres around a hole of the grid (pixels, fractional): from each side of the hole,
    /// the grid's line is crossed outwards at several places along it, and its middle taken (the median
    /// of those places, so a stroke joining the line at one of them does not move it).
    private func boxAround(_ hole: PixelRect, grid: Image, reach: Int) -> (x0: Double, y0: Double, x1: Double, y1: Double) {
        let fractions = [0.2, 0.35, 0.5, 0.65, 0.8]
        func thickness(fromX x: Int, y: Int, step: Int) -> Int {
            var n = 0
            while n < reach, grid.isForeground(x: x + step * n, y: y) { n += 1 }
            return n
        }
        func thickness(fromY y: Int, x: Int, step: Int) -> Int {
            var n = 0
            while n < reach, grid.isForeground(x: x, y: y + step * n) { n += 1 }
            return n
        }
        func median(_ values: [Int]) -> Double { Double(values.sorted()[values.count / 2]) }
        let rows = fractions.map { hole.y + Int(Double(hole.height) * $0) }
        let columns = fractions.map { hole.x + Int(Double(hole.width) * $0) }
        let left = median(rows.map { thickness(fromX: hole.x - 1, y: $0, step: -1) })
        let right = median(rows.map { thickness(fromX: hole.maxX, y: $0, step: 1) })
        let top = median(columns.map { thickness(fromY: hole.y - 1, x: $0, step: -1) })
        let bottom = median(columns.map { thickness(fromY: hole.maxY, x: $0, step: 1) })
        return (Double(hole.x) - left / 2, Double(hole.y) - top / 2, Double(hole.maxX) + right / 2, Double(hole.maxY) + bottom / 2)
    }

    /// Neighbouring cells share a line, and its middle measured from either side can differ by a rounding:
    /// such slight overlaps are split at their middle, since a template's fields may not overlap.
    static func separated(_ cells: [Rect]) -> [Rect] {
        var cells = cells
        for i in cells.indices {
            for j in cells.indices where j > i && cells[i].intersects(cells[j]) {
                var a = cells[i], b = cells[j]
                let overlapX = min(a.maxX, b.maxX) - max(a.x, b.x), overlapY = min(a.maxY, b.maxY) - max(a.y, b.y)
                if overlapX <= 2 && overlapX <= overlapY {
                    let (l, r) = a.x < b.x ? (a, b) : (b, a)
                    let middle = ((l.maxX + r.x) / 2).rounded(to: 0.1)
                    let newL = Rect(x: l.x, y: l.y, width: (middle - l.x).rounded(to: 0.1), height: l.height)
                    let newR = Rect(x: middle, y: r.y, width: (r.maxX - middle).rounded(to: 0.1), height: r.height)
                    if a.x < b.x { a = newL; b = newR } else { b = newL; a = newR }
                } else if overlapY <= 2 {
                    let (t, u) = a.y < b.y ? (a, b) : (b, a)
                    let middle = ((t.maxY + u.y) / 2).rounded(to: 0.1)
                    let newT = Rect(x: t.x, y: t.y, width: t.width, height: (middle - t.y).rounded(to: 0.1))
                    let newU = Rect(x: u.x, y: middle, width: u.width, height: (u.maxY - middle).rounded(to: 0.1))
                    if a.y < b.y { a = newT; b = newU } else { b = newT; a = newU }
                }
                cells[i] = a; cells[j] = b
            }
        }
        // Rounded to tenths, a cell's x + width can land a hair past its neighbour's x (456.5 + 31.9 is
        // 488.40000000000003): such a cell gives up a tenth of a point.
        for i in cells.indices {
            for j in cells.indices where j != i && cells[i].intersects(cells[j]) {
                if cells[i].x < cells[j].x && cells[i].maxX - cells[j].x < 0.05 {
                    cells[i].width = (cells[i].width - 0.1).rounded(to: 0.1)
                } else if cells[i].y < cells[j].y && cells[i].maxY - cells[j].y < 0.05 {
                    cells[i].height = (cells[i].height - 0.1).rounded(to: 0.1)
                }
            }
        }
        // Cells still overlapping past that are one region leaking round another (a line broken where the
        // photo blurred it): the larger is the leak, the smaller the box.
        let leaks = Set(cells.indices.filter { i in
            cells.indices.contains { j in
                j != i && cells[i].intersects(cells[j]) && cells[i].width * cells[i].height > cells[j].width * cells[j].height
            }
        })
        return cells.indices.filter { !leaks.contains($0) }.map { cells[$0] }
    }
}

extension Double {
    /// Rounded to a multiple of `step`: template numbers people read and edit.
    func rounded(to step: Double) -> Double {
        // Divided by the inverse rather than multiplied by the step: 723 / 10 is 72.3, 723 × 0.1 is not.
        let inverse = (1 / step).rounded()
        return (self * inverse).rounded() / inverse
    }
}

extension Rect {
    func rounded(to step: Double) -> Rect {
        let x0 = x.rounded(to: step), y0 = y.rounded(to: step)
        return Rect(x: x0, y: y0, width: (maxX.rounded(to: step) - x0).rounded(to: step), height: (maxY.rounded(to: step) - y0).rounded(to: step))
    }
}
