import OCRKit
import SheetModel

/// Separates handwriting from the printed box when it touches or crosses the box's lines.
///
/// `CellCleaner` removes lines with long morphological openings, which is right for print (digits sit
/// well inside their boxes) but takes with the line any pen stroke lying along it or crossing near it:
/// a 7 whose bar sits on the box's top edge becomes a 1, a 1 written over the divider disappears.
/// Here each printed line is found where it really is (near where the alignment puts it), and erased
/// only where the ink across it is no thicker than the line itself: where a stroke crosses, the ink
/// run is longer, and it stays. A stroke lying along a box's side or divider (a 1 written on it) widens
/// the run less than that, but over a long stretch and more than on the field's other sides: it stays
/// too (`strokesAlong`).
///
/// Written on Swift arrays rather than with Leptonica because the rule is per ink run across a line
/// found per segment, which Leptonica's morphology cannot express.
public struct HandwritingCleaner: Sendable {
    /// Ink is darker than this fraction of the paper (pencil included).
    public var inkRatio = 0.78
    /// How far (points) from where the alignment puts it a printed line is looked for.
    public var searchPoints = 2.0
    /// Ink beyond the field's rect kept with the strokes that start inside it (points): people's
    /// digits overrun the box.
    public var overhangPoints = 3.5
    /// Length (pixels) of the stretches along a line over which its position is found anew, for lines
    /// bent by the camera.
    public var segmentLength = 12
    /// The shortest pen stroke looked for along a box side, as a fraction of the field's height.
    public var strokeFraction = 0.25

    public init() {}

    /// A field's handwriting: the ink components that reach into the field, in the pixels of an image
    /// covering the field's rect plus the overhang.
    public struct Ink {
        public let components: [ComponentMask]
        /// Each comb box in the same pixels.
        public let boxes: [PixelRect]
        /// The whole area, 1-bit, before components outside the field are dropped (for debugging).
        public let image: Image
    }

    /// - Parameter printedRows: whether lines are printed along the rect's top and bottom (a box's are;
    ///   the open paper beside a field has none, and erasing one there would take a digit's base with it).
    public func clean(_ field: FieldSpec, in cell: FieldCell, printedRows: Bool = true) throws(ImagingError) -> Ink {
        let w = cell.image.width, h = cell.image.height
        var ink = inkMask(of: cell)
        let search = searchPixels(in: cell)
        // The box's sides and dividers are all traced before any is erased: each is judged against
        // the others, which the same print and the same camera made. The open paper beside a field has
        // one printed side, the field's edge, and nothing to judge it against: it is erased as it
        // always was.
        let sides = traceSides(of: field, in: cell, ink: ink)
        for (k, side) in sides.enumerated() {
            let others = sides.indices.filter { $0 != k }.map { sides[$0] }
            erase(&ink, width: w, side, keeping: printedRows ? strokesAlong(side, others: others) : [])
        }
        for y in printedRows ? [field.rect.y, field.rect.maxY] : [] {
            let line = cell.pixels(Rect(x: field.rect.x, y: y, width: field.rect.width, height: 0))
            let row = trace(ink, width: w, height: h, at: line.y, from: line.x, to: line.maxX, search: search, vertical: false)
            erase(&ink, width: w, row, keeping: [])
        }

        let area = cell.pixels(field.rect.insetBy(-overhangPoints, -overhangPoints))
        guard let crop = area.clamped(to: PixelRect(x: 0, y: 0, width: w, height: h)) else {
            throw .invalidArgument("field \(field.id) lies outside its cell")
        }
        var pixels = [UInt8](repeating: 255, count: crop.area)
        for y in 0..<crop.height {
            for x in 0..<crop.width where ink[(crop.y + y) * w + crop.x + x] { pixels[y * crop.width + x] = 0 }
        }
        let binary = try Image(GrayBuffer(width: crop.width, height: crop.height, pixels: pixels)).thresholded(below: 128)
        // Keep only what reaches into the field: the neighbours' ink and the printed labels stay out.
        let inside = cell.pixels(field.rect.insetBy(1.5, 1.5))
        let insideHere = PixelRect(x: inside.x - crop.x, y: inside.y - crop.y, width: inside.width, height: inside.height)
        let kept = try binary.componentMasks(minimumArea: 2).filter { $0.bounds.clamped(to: insideHere) != nil }
        let boxes = field.boxes.map { box -> PixelRect in
            let p = cell.pixels(box)
            return PixelRect(x: p.x - crop.x, y: p.y - crop.y, width: p.width, height: p.height)
        }
        return Ink(components: kept, boxes: boxes, image: binary)
    }

    /// The cell's pixels that are ink.
    func inkMask(of cell: FieldCell) -> [Bool] {
        let threshold = UInt8(cell.image.inkThreshold(ratio: inkRatio))
        return cell.image.pixels.map { $0 < threshold }
    }

    func searchPixels(in cell: FieldCell) -> Int { max(2, Int((searchPoints * cell.scale).rounded())) }

    /// The field's vertical sides, left edge and each box's right edge, traced in `ink`. All span the
    /// field's rows, so their traces line up point for point.
    func traceSides(of field: FieldSpec, in cell: FieldCell, ink: [Bool]) -> [LineTrace] {
        let search = searchPixels(in: cell)
        return ([field.rect.x] + field.boxes.map(\.maxX)).map { x in
            let line = cell.pixels(Rect(x: x, y: field.rect.y, width: 0, height: field.rect.height))
            return trace(ink, width: cell.image.width, height: cell.image.height, at: line.x, from: line.y, to: line.maxY,
                         search: search, vertical: true)
        }
    }

    /// Where one printed line runs, and the ink across it at each point along it.
    struct LineTrace {
        let vertical: Bool
        /// Pixels along the line: the field's extent (`start..<end`) and the search margin either side.
        let first: Int, start: Int, end: Int
        /// The ink run across the line at `first + i`, as the first and last pixel across.
        let runs: [(low: Int, high: Int)?]
        /// The line's own thickness, and the widest run erased as the line's.
        let thickness: Int, limit: Int

        func width(_ i: Int) -> Int? { runs[i].map { $0.high - $0.low + 1 } }
    }

    /// Finds one printed line: straight, `vertical` or horizontal, expected at `position` between
    /// `start` and `end` (pixels along it).
    func trace(_ ink: [Bool], width: Int, height: Int, at position: Int, from start: Int, to end: Int,
               search: Int, vertical: Bool) -> LineTrace {
        let along = vertical ? height : width, across = vertical ? width : height
        func inkAt(_ a: Int, _ c: Int) -> Bool {
            guard a >= 0, a < along, c >= 0, c < across else { return false }
            return vertical ? ink[a * width + c] : ink[c * width + a]
        }
        let first = max(0, start - search), last = min(along, end + search)
        // Where the line runs, stretch by stretch: the offset with the most ink along it.
        var centres: [Int] = []
        var s = first
        while s < last {
            let e = min(last, s + segmentLength)
            var best = position, bestCount = -1
            for c in (position - search)...(position + search) {
                let count = (s..<e).reduce(0) { $0 + (inkAt($1, c) ? 1 : 0) }
                if count > bestCount || (count == bestCount && abs(c - position) < abs(best - position)) {
                    best = c
                    bestCount = count
                }
            }
            centres += Array(repeating: best, count: e - s)
            s = e
        }
        // The ink run across the line at each point.
        var runs: [(low: Int, high: Int)?] = []
        for a in first..<max(first, last) {
            let c = centres[a - first]
            guard inkAt(a, c) else { runs.append(nil); continue }
            var low = c, high = c
            while inkAt(a, low - 1) { low -= 1 }
            while inkAt(a, high + 1) { high += 1 }
            runs.append((low, high))
        }
        let lengths = runs.compactMap { $0.map { $0.high - $0.low + 1 } }.sorted()
        // The line's own thickness. Pen ink along the line only widens the run, and a number written over
        // the divider can widen most of them: their median then took the stroke for the line and erased
        // it ("10" with its 1 beside the divider read "0"). The narrowest runs are the line alone; the
        // eighth-narrowest, not the narrowest, which is where the print is faint or broken (measured
        // against the median, the quarter- and the narrowest: docs/decisions.md).
        let thickness = lengths.isEmpty ? 0 : lengths[lengths.count / 8]
        return LineTrace(vertical: vertical, first: first, start: start, end: end, runs: runs,
                         thickness: thickness, limit: thickness + max(2, thickness / 2))
    }

    /// Erases a traced line where the ink across it is no wider than `limit`, except at `keeping`.
    func erase(_ ink: inout [Bool], width: Int, _ line: LineTrace, keeping: Set<Int>) {
        for (i, run) in line.runs.enumerated() {
            guard let run, let across = line.width(i), across <= line.limit, !keeping.contains(i) else { continue }
            let a = line.first + i
            for c in run.low...run.high {
                if line.vertical { ink[a * width + c] = false } else { ink[c * width + a] = false }
            }
        }
    }

    /// The points along a box side or divider where a pen stroke lies on it, to be kept: a 1 written
    /// on the divider is no wider than the line plus the margin `erase` allows, and went with it.
    ///
    /// The line's own width wanders: by a pixel as a crisp scan's line drifts across the pixel grid,
    /// by two toward a phone photo's edges. The field's other sides wander the same way at the same
    /// height, so a point counts as widened only when the ink there is at least two pixels wider than
    /// on every other side of the field. A stroke is a stretch of such points, gaps of up to three
    /// allowed, numbering at least `strokeFraction` of the field's height (and 8), and lying wholly
    /// inside the field, between the top and bottom lines. The other sides are the reference because
    /// print and camera widen them all alike: judged against the line's own narrower runs, crisp scans
    /// and box scores grew phantom 1s. Shorter stretches joined digits through kept bits of the divider
    /// ("12" read 2).
    func strokesAlong(_ line: LineTrace, others: [LineTrace]) -> Set<Int> {
        guard !others.isEmpty else { return [] }
        precondition(others.allSatisfy { $0.runs.count == line.runs.count }, "sides traced over different rows")
        let minimum = max(8, Int(Double(line.end - line.start) * strokeFraction))
        let interior = (line.start - line.first)..<(line.end - line.first)
        let widened = line.runs.indices.map { i -> Bool in
            guard let here = line.width(i) else { return false }
            let beside = others.map { $0.width(i) ?? $0.thickness }.max() ?? 0
            return here >= beside + 2
        }
        var kept = Set<Int>()
        var i = 0
        while i < widened.count {
            guard widened[i] else { i += 1; continue }
            var last = i, count = 0, j = i
            while j < widened.count, j - last <= 4 {
                if widened[j] { last = j; count += 1 }
                j += 1
            }
            if count >= minimum, interior.contains(i), interior.contains(last) { kept.formUnion(i...last) }
            i = last + 1
        }
        return kept
    }
}
