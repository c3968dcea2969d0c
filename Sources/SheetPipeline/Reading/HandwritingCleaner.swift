import OCRKit
import SheetModel

/// Separates handwriting from the printed box when it touches or crosses the box's lines.
///
/// `CellCleaner` removes lines with long morphological openings, which is right for print (digits sit
/// well inside their boxes) but takes with the line any pen stroke lying along it or crossing near it:
/// a 7 whose bar sits on the box's top edge becomes a 1, a 1 written over the divider disappears.
/// Here each printed line is found where it really is (near where the alignment puts it), and erased
/// only where the ink across it is no thicker than the line itself: where a stroke crosses, the ink
/// run is longer, and it stays.
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
        let threshold = UInt8(cell.image.inkThreshold(ratio: inkRatio))
        var ink = cell.image.pixels.map { $0 < threshold }

        let search = max(2, Int((searchPoints * cell.scale).rounded()))
        for x in [field.rect.x] + field.boxes.map(\.maxX) {
            let line = cell.pixels(Rect(x: x, y: field.rect.y, width: 0, height: field.rect.height))
            erase(&ink, width: w, height: h, at: line.x, from: line.y, to: line.maxY, search: search, vertical: true)
        }
        for y in printedRows ? [field.rect.y, field.rect.maxY] : [] {
            let line = cell.pixels(Rect(x: field.rect.x, y: y, width: field.rect.width, height: 0))
            erase(&ink, width: w, height: h, at: line.y, from: line.x, to: line.maxX, search: search, vertical: false)
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

    /// Erases one printed line: straight, `vertical` or horizontal, expected at `position` between
    /// `start` and `end` (pixels along it).
    func erase(_ ink: inout [Bool], width: Int, height: Int, at position: Int, from start: Int, to end: Int,
               search: Int, vertical: Bool) {
        let along = vertical ? height : width, across = vertical ? width : height
        func inkAt(_ a: Int, _ c: Int) -> Bool {
            guard a >= 0, a < along, c >= 0, c < across else { return false }
            return vertical ? ink[a * width + c] : ink[c * width + a]
        }
        func clear(_ a: Int, _ c: Int) {
            if vertical { ink[a * width + c] = false } else { ink[c * width + a] = false }
        }
        let first = max(0, start - search), last = min(along, end + search)
        guard last > first else { return }
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
        for a in first..<last {
            let c = centres[a - first]
            guard inkAt(a, c) else { runs.append(nil); continue }
            var low = c, high = c
            while inkAt(a, low - 1) { low -= 1 }
            while inkAt(a, high + 1) { high += 1 }
            runs.append((low, high))
        }
        let lengths = runs.compactMap { $0.map { $0.high - $0.low + 1 } }.sorted()
        guard !lengths.isEmpty else { return }
        // The line's own thickness. Pen ink along the line only widens the run, and a number written over
        // the divider can widen most of them: their median then took the stroke for the line and erased
        // it ("10" with its 1 beside the divider read "0"). The narrowest runs are the line alone; the
        // eighth-narrowest, not the narrowest, which is where the print is faint or broken. Measured on
        // the nine hand-filled goalie sets (525 sheets) against the median: 0.8–1.6 points more numbers
        // right and 4–8 points fewer flagged on every set with a divider, no more wrong and unflagged;
        // the quarter-narrowest did a little less well, the narrowest much worse (89.8% right on the
        // 150-phone-sheet set, where the median had 94.1%).
        let thickness = lengths[lengths.count / 8]
        let limit = thickness + max(2, thickness / 2)
        for (i, run) in runs.enumerated() {
            guard let run, run.high - run.low + 1 <= limit else { continue }
            for c in run.low...run.high { clear(first + i, c) }
        }
    }
}
