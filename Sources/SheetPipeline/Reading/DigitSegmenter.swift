import OCRKit

/// The ink of one handwritten character: one or more connected components read together.
public struct Glyph: Sendable, Equatable {
    public var bounds: PixelRect
    public var components: [ComponentMask]

    public init(_ components: [ComponentMask]) {
        self.components = components
        bounds = components.dropFirst().reduce(components[0].bounds) { $0.union($1.bounds) }
    }

    public var area: Int { components.reduce(0) { $0 + $1.area } }

    /// 1 where any of the glyph's components has ink, over `bounds`, row-major.
    public var ink: [Float] {
        var ink = [Float](repeating: 0, count: bounds.area)
        for c in components {
            for row in 0..<c.bounds.height {
                let y = c.bounds.y + row - bounds.y
                for col in 0..<c.bounds.width where c.bits[row * c.bounds.width + col] {
                    ink[y * bounds.width + c.bounds.x + col - bounds.x] = 1
                }
            }
        }
        return ink
    }

    /// The glyph's columns `range` (in glyph coordinates) as a glyph of their own, or nil when they
    /// hold no ink.
    func columns(_ range: Range<Int>) -> Glyph? {
        let ink = self.ink
        var bits = [Bool](repeating: false, count: range.count * bounds.height)
        for y in 0..<bounds.height {
            for x in range where ink[y * bounds.width + x] > 0 { bits[y * range.count + x - range.lowerBound] = true }
        }
        guard bits.contains(true) else { return nil }
        // Trim empty rows so the bounds are the ink's.
        let rows = (0..<bounds.height).filter { y in bits[(y * range.count)..<((y + 1) * range.count)].contains(true) }
        let top = rows.first!, bottom = rows.last! + 1
        let trimmed = Array(bits[(top * range.count)..<(bottom * range.count)])
        return Glyph([ComponentMask(bounds: PixelRect(x: bounds.x + range.lowerBound, y: bounds.y + top,
                                                      width: range.count, height: bottom - top), bits: trimmed)])
    }
}

extension PixelRect {
    func union(_ other: PixelRect) -> PixelRect {
        let x0 = min(x, other.x), y0 = min(y, other.y)
        return PixelRect(x: x0, y: y0, width: max(maxX, other.maxX) - x0, height: max(maxY, other.maxY) - y0)
    }

    /// Columns shared with `other`.
    func horizontalOverlap(_ other: PixelRect) -> Int { max(0, min(maxX, other.maxX) - max(x, other.x)) }
}

/// Groups a field's ink components into characters, left to right, ignoring the comb boxes: people
/// write a two-digit number across the divider, or in one box, as often as one digit per box.
///
/// - Pieces of one digit (the flag of a 5, the two strokes of a 4) overlap horizontally: they become
///   one glyph.
/// - Marks small in both directions that sit over no digit are stray (a dot, a tick of the pen) and are
///   set aside, so that an empty box with a speck is still read as empty.
/// - Two digits written touching make one wide component; `splits(of:)` offers where to cut it, and
///   the reader keeps the cut only when the network likes the halves better than the whole.
public struct DigitSegmenter: Sendable {
    /// A mark is stray when it is smaller than this share of the writing height in both directions.
    public var strayShare = 0.25
    /// Components overlapping horizontally by at least this share of the narrower one are one digit.
    public var mergeOverlap = 0.4
    /// A glyph wider than this many times its height may be two touching digits.
    public var splitAspect = 1.05

    public init() {}

    public struct Segmentation: Sendable, Equatable {
        public var glyphs: [Glyph]
        public var stray: [ComponentMask]
    }

    /// - Parameter writingHeight: height in pixels of the space a digit is written in (the box).
    public func segment(_ components: [ComponentMask], writingHeight: Int) -> Segmentation {
        let small = Double(writingHeight) * strayShare
        func isSmall(_ r: PixelRect) -> Bool { Double(r.width) < small && Double(r.height) < small }
        // A thin stroke can break into pieces when thresholded: a small piece within a few pixels of
        // other ink belongs with it, so pieces are gathered before anything is called stray.
        let pieces = Self.gathered(components, near: max(2, writingHeight / 12), small: { isSmall($0.bounds) })
        var glyphs: [Glyph] = []
        for piece in pieces.filter({ !isSmall($0.bounds) }).sorted(by: { $0.bounds.x < $1.bounds.x }) {
            if let last = glyphs.last,
               Double(last.bounds.horizontalOverlap(piece.bounds)) >= mergeOverlap * Double(min(last.bounds.width, piece.bounds.width)) {
                glyphs[glyphs.count - 1] = Glyph(last.components + piece.components)
            } else {
                glyphs.append(piece)
            }
        }
        var stray: [ComponentMask] = []
        for piece in pieces where isSmall(piece.bounds) {
            // A small piece over a digit, and near it vertically, is part of it (a 5's flag, a 7's bar).
            let best = glyphs.indices.max { glyphs[$0].bounds.horizontalOverlap(piece.bounds) < glyphs[$1].bounds.horizontalOverlap(piece.bounds) }
            if let i = best, Double(glyphs[i].bounds.horizontalOverlap(piece.bounds)) >= 0.5 * Double(piece.bounds.width),
               piece.bounds.y < glyphs[i].bounds.maxY + writingHeight / 8, piece.bounds.maxY > glyphs[i].bounds.y - writingHeight / 8 {
                glyphs[i] = Glyph(glyphs[i].components + piece.components)
            } else {
                stray += piece.components
            }
        }
        return Segmentation(glyphs: glyphs, stray: stray)
    }

    /// Components joined into groups wherever a small one comes within `gap` pixels of another, closest
    /// pairs first. A group never holds two components that are not small: a remnant of the divider
    /// between a 1 and its 0 lies within reach of both, and joining through it made "10" one glyph, read 0.
    static func gathered(_ components: [ComponentMask], near gap: Int, small isSmall: (ComponentMask) -> Bool) -> [Glyph] {
        var group = Array(components.indices)
        let small = components.map(isSmall)
        var holdsLarge = small.map { !$0 }
        func root(_ i: Int) -> Int { group[i] == i ? i : root(group[i]) }
        var pairs: [(distance: Int, i: Int, j: Int)] = []
        for i in components.indices {
            for j in components.indices where j > i && (small[i] || small[j]) {
                let a = components[i].bounds, b = components[j].bounds
                let dx = max(0, max(a.x, b.x) - min(a.maxX, b.maxX)), dy = max(0, max(a.y, b.y) - min(a.maxY, b.maxY))
                if dx <= gap && dy <= gap { pairs.append((dx + dy, i, j)) }
            }
        }
        for pair in pairs.sorted(by: { ($0.distance, $0.i, $0.j) < ($1.distance, $1.i, $1.j) }) {
            let a = root(pair.i), b = root(pair.j)
            guard a != b, !(holdsLarge[a] && holdsLarge[b]) else { continue }
            group[b] = a
            holdsLarge[a] = holdsLarge[a] || holdsLarge[b]
        }
        // Left to right. A dictionary's order changes from run to run, so ties go by top, then by the
        // first component's place, and a sheet reads the same every time.
        return Dictionary(grouping: components.indices, by: root).values
            .map { members in (first: members.min()!, glyph: Glyph(members.sorted().map { components[$0] })) }
            .sorted { ($0.glyph.bounds.x, $0.glyph.bounds.y, $0.first) < ($1.glyph.bounds.x, $1.glyph.bounds.y, $1.first) }
            .map(\.glyph)
    }

    /// The middle part of a wide glyph's width, as shares, where a cut between two digits is looked for.
    public static let cutSpan = 0.3...0.7

    /// Ways to cut a wide glyph into two digits: at the column with the least ink in its middle part
    /// (`cutSpan`). Empty when the glyph is not wide enough to hold two digits.
    public func splits(of glyph: Glyph) -> [(Glyph, Glyph)] {
        let w = glyph.bounds.width, h = glyph.bounds.height
        guard Double(w) > splitAspect * Double(h) else { return [] }
        let ink = glyph.ink
        let columnInk = (0..<w).map { x in (0..<h).reduce(Float(0)) { $0 + ink[$1 * w + x] } }
        let lo = Int(Double(w) * Self.cutSpan.lowerBound), hi = Int(Double(w) * Self.cutSpan.upperBound)
        guard hi > lo, let cut = (lo..<hi).min(by: { columnInk[$0] < columnInk[$1] }),
              let left = glyph.columns(0..<cut), let right = glyph.columns(cut..<w) else { return [] }
        return [(left, right)]
    }
}
