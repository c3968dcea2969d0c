import Foundation
import OCRKit
import SheetModel

/// The four corner markers found in an image, in template order: top-left (the ring), top-right,
/// bottom-right, bottom-left, each at its centre in the image's pixels.
public struct MarkerQuad: Sendable, Equatable {
    public let corners: [Point]
    /// Whether the ring was seen, fixing the orientation. When false the corners are in clockwise
    /// order but the true top-left may be any of them.
    public let ringFound: Bool
    /// The corner whose marker was not seen (curled up, covered, cut off), when only three were. Its point
    /// is where a parallelogram puts it, which perspective can miss by tens of points: the aligner finds
    /// it again from the printed lines.
    public let missing: Int?

    public init(corners: [Point], ringFound: Bool, missing: Int? = nil) {
        self.corners = corners
        self.ringFound = ringFound
        self.missing = missing
    }

    /// Clockwise quarter turns of the sheet in the image: the direction of its top edge.
    public var quarterTurns: Int {
        let dx = corners[1].x - corners[0].x, dy = corners[1].y - corners[0].y
        let angle = atan2Degrees(dy, dx)
        return ((Int((angle / 90).rounded()) % 4) + 4) % 4
    }

    /// The same corners starting one further clockwise: the sheet turned a quarter the other way.
    func rotated(by steps: Int) -> MarkerQuad {
        let k = ((steps % 4) + 4) % 4
        return MarkerQuad(corners: Array(corners[k...] + corners[..<k]), ringFound: ringFound, missing: missing.map { ($0 - k + 4) % 4 })
    }
}

func atan2Degrees(_ y: Double, _ x: Double) -> Double {
    var a = atan2(y, x) * 180 / .pi
    if a < 0 { a += 360 }
    return a
}

/// Why a sheet could not be aligned.
public enum AlignmentError: Error, Equatable, Sendable {
    case noMarkers
    case markersMissing(found: Int)
    case markNotRead
    case unknownMark(version: Int)
    case wrongTemplate(expected: String, found: String)
    case wrongVersion(template: String, expected: Int, found: Int)
    case poorFit(quality: Double)
    /// The printed boxes of these fields are not where any smooth page puts them.
    case pageNotExplained(fields: [String])
    /// A sheet without our markers that no form printed elsewhere fits well enough: the nearest, best first.
    case noFormFits(nearest: [FormFit])
    /// A sheet without our markers that two forms fit about as well: which one it is cannot be told.
    case formsAlike(nearest: [FormFit])
    /// Some of our markers were found but did not align the sheet, and neither did the lines of the forms
    /// printed elsewhere: a sheet of ours with a corner lost, or a club's form with a square blob on it.
    indirect case neitherMarkersNorLines(markers: AlignmentError, lines: AlignmentError)

    /// Whether a sheet refused by its markers may still be a form printed elsewhere: not when a mark of ours
    /// was read (a sheet of ours is identified by its mark, never by fit).
    var allowsAFormPrintedElsewhere: Bool {
        switch self {
        case .wrongTemplate, .wrongVersion, .unknownMark: false
        default: true
        }
    }

    /// A refusal by the forms' lines in words that say nothing of our markers (they are said beside it).
    var asFormPrintedElsewhere: String {
        switch self {
        case .noFormFits(let nearest):
            nearest.isEmpty ? "no template of a form printed elsewhere to fit"
                : "none fits it well enough (nearest: \(Self.listed(nearest)))"
        default: message
        }
    }

    /// Forms and their fit in words: `club-card 93%, league-tally 41%`.
    static func listed(_ fits: [FormFit]) -> String {
        fits.map { "\($0.template) \(Int(($0.fit * 100).rounded()))%" }.joined(separator: ", ")
    }

    public var message: String {
        switch self {
        case .noMarkers:
            "no alignment markers found: is this a statsheet sheet, and is the whole page in the picture?"
        case .markersMissing(let found):
            "found \(found) of the 4 corner markers: is a corner cut off, folded or covered?"
        case .markNotRead:
            "the template mark at the top of the sheet could not be read; name the template with --template"
        case .unknownMark(let version):
            "the sheet's template mark (version \(version)) matches no known template; add its template with --templates"
        case .wrongTemplate(let expected, let found):
            "this sheet is a '\(found)' sheet, not '\(expected)'"
        case .wrongVersion(let template, let expected, let found):
            "this sheet was printed from \(template) v\(found), but the template here is v\(expected)"
        case .poorFit(let quality):
            "the sheet could not be aligned (only \(Int((quality * 100).rounded()))% of its box lines were found where expected): another sheet, or a badly bent or blurred photo?"
        case .pageNotExplained(let fields):
            "the printed boxes of \(fields.count) field\(fields.count == 1 ? "" : "s") (\(fields.prefix(6).joined(separator: ", "))\(fields.count > 6 ? ", …" : "")) are not where a smoothly bent page would put them: torn, folded over, or covered there?"
        case .noFormFits(let nearest):
            nearest.isEmpty
                ? "no alignment markers found, and no template of a form printed elsewhere to fit: is this a statsheet sheet, and is the whole page in the picture?"
                : "no alignment markers found, and no form printed elsewhere fits the sheet well enough (nearest: \(Self.listed(nearest))): another form, a page that is no form, or a badly bent or blurred photo?"
        case .formsAlike(let nearest):
            "the sheet fits several forms printed elsewhere about as well (\(Self.listed(nearest))): name its template with --template"
        case .neitherMarkersNorLines(let markers, let lines):
            "\(markers.message) Nor could it be read as a form printed elsewhere: \(lines.asFormPrintedElsewhere)"
        }
    }
}

/// Finds the corner markers: solid dark squares and one ring, told apart from print, boxes and
/// handwriting by shape statistics that do not change with rotation or scale.
public struct MarkerDetector: Sendable {
    /// The image is halved until its long side is at most this: markers stay tens of pixels wide and
    /// the search costs a few milliseconds.
    public var workingLongSide = 1300
    /// How many alternative marker quads to offer the aligner.
    public var maxQuads = 4

    public init() {}

    /// Marker quads that fit, most likely first (largest). Usually the first is right; a square blob in
    /// the background can outrank it, so the aligner tries them in turn until one reads as a sheet.
    public func detect(in image: Image) throws(AlignmentError) -> [MarkerQuad] {
        do {
            return try detectOrThrowImaging(image)
        } catch let error as AlignmentError {
            throw error
        } catch {
            throw .noMarkers
        }
    }

    private func detectOrThrowImaging(_ image: Image) throws -> [MarkerQuad] {
        var halvings = 0
        while max(image.width, image.height) >> halvings > workingLongSide { halvings += 1 }
        let small = try image.halved(times: halvings)
        let factor = Double(small.width) / Double(image.width)
        let binary = try small.backgroundNormalized().thresholded(below: 110)
        let size = Double(max(small.width, small.height))
        let minSide = max(6, Int(size * 0.008)), maxSide = Int(size * 0.09)
        let components = try binary.components { box in
            box.width >= minSide && box.height >= minSide && box.width <= maxSide && box.height <= maxSide
                && box.width * 2 >= box.height && box.height * 2 >= box.width
        }
        // Every marker stands in a quiet zone of paper; a dark square in a wood grain or a patterned
        // tablecloth does not.
        let candidates = components.compactMap(Candidate.init).filter { hasQuietZone($0, in: binary) }
        guard !candidates.isEmpty else { throw AlignmentError.noMarkers }
        // The markers are the largest squares a sheet prints; the ring, when seen, gives their size.
        let largest = candidates.map(\.side).max()!
        let pool = markerSized(candidates, like: candidates.filter(\.isRing).map(\.side).max() ?? largest)
        let scaled = { (c: Candidate) in Point(x: c.x / factor, y: c.y / factor) }
        let quads = chooseFour(pool)
        if !quads.isEmpty {
            return quads.map { chosen in
                let ordered = clockwise(chosen)
                let ringIndex = ordered.firstIndex { $0.isRing }
                let start = ringIndex ?? 0
                let rotated = Array(ordered[start...] + ordered[..<start])
                return MarkerQuad(corners: rotated.map(scaled), ringFound: ringIndex != nil)
            }
        }
        // One marker not seen: the corner a curl lifts, a thumb covers or the photo cuts off. When it is
        // the ring, a ring-like blob (a written "o") must not set the markers' size: the squares are
        // sized by the largest square too.
        let squares = candidates.filter { !$0.isRing }.map(\.side).max().map { markerSized(candidates, like: $0) } ?? []
        let triples = chooseThree(in: [pool, squares])
        guard !triples.isEmpty else { throw AlignmentError.markersMissing(found: min(3, max(pool.count, squares.count))) }
        return triples.map { three in
            // Clockwise, the missing corner comes after the third. The ring starts the quad; when it is not
            // among the three, it is the missing one (a sheet prints one ring and three squares), so either
            // way the orientation is known.
            let seen = three.map(scaled)
            let inferred = Point(x: seen[0].x + seen[2].x - seen[1].x, y: seen[0].y + seen[2].y - seen[1].y)
            let start = three.firstIndex { $0.isRing } ?? 3
            let corners = seen + [inferred]
            return MarkerQuad(corners: Array(corners[start...] + corners[..<start]), ringFound: true, missing: (3 - start + 4) % 4)
        }
    }

    struct Candidate {
        let x: Double, y: Double, area: Double, side: Double, isRing: Bool

        init?(_ c: ComponentStats) {
            guard c.isotropy > 0.6 else { return nil }
            let fill = Double(c.area) / Double(c.bounds.area)
            if c.centroidIsForeground {
                // Solid square: spread 1/6 whatever its rotation.
                guard (0.13...0.215).contains(c.spread), fill > 0.45 else { return nil }
                isRing = false
                side = Double(c.area).squareRoot()
            } else {
                // Ring with a hole half its side: spread 0.278.
                guard (0.22...0.34).contains(c.spread), fill > 0.35 else { return nil }
                isRing = true
                side = (Double(c.area) / 0.75).squareRoot()
            }
            x = c.centroidX; y = c.centroidY; area = Double(c.area) / (isRing ? 0.75 : 1)
        }
    }

    /// Whether a circle around the candidate, inside the printed quiet zone (which reaches 0.75 of a
    /// side from the centre) and outside the square itself in any rotation (0.71), is nearly all paper.
    private func hasQuietZone(_ c: Candidate, in binary: Image) -> Bool {
        let radius = 0.73 * c.side, samples = 48
        var ink = 0
        for i in 0..<samples {
            let angle = Double(i) * 2 * .pi / Double(samples)
            if binary.isForeground(x: Int(c.x + radius * cos(angle)), y: Int(c.y + radius * sin(angle))) { ink += 1 }
        }
        return ink <= samples / 8
    }

    /// The candidates within a factor 0.6 of a marker's side `side`, largest first (at most 14): smaller
    /// squares (mark cells, filled checkboxes) must not stand in for a missing marker.
    private func markerSized(_ candidates: [Candidate], like side: Double) -> [Candidate] {
        Array(candidates.filter { $0.side >= side * 0.6 && $0.side <= side / 0.6 }.sorted { $0.area > $1.area }.prefix(14))
    }

    /// Whether candidates could be markers of one sheet: perspective makes the far markers smaller, but
    /// not by half, while a ticked checkbox or a mark cell is (2/3)² or less of a marker's area; and one
    /// sheet prints one ring.
    private func alike(_ set: [Candidate]) -> Bool {
        let areas = set.map(\.area)
        return areas.max()! <= areas.min()! * 1.9 && set.filter(\.isRing).count <= 1
    }

    /// Sets of four candidates of similar size spanning a convex quadrilateral, largest first (at most
    /// `maxQuads`).
    private func chooseFour(_ pool: [Candidate]) -> [[Candidate]] {
        var found: [(area: Double, set: [Candidate])] = []
        let n = pool.count
        guard n >= 4 else { return [] }
        for a in 0..<n { for b in (a + 1)..<n { for c in (b + 1)..<n { for d in (c + 1)..<n {
            let set = [pool[a], pool[b], pool[c], pool[d]]
            guard alike(set) else { continue }
            let quad = clockwise(set)
            guard let area = convexArea(quad), area > 0, oppositeSidesAgree(quad) else { continue }
            // A marker quad spans far more than its markers: reject clusters of small squares.
            let side = set.map(\.side).reduce(0, +) / 4
            guard area > side * side * 60 else { continue }
            found.append((area, set))
        }}}}
        return found.sorted { $0.area > $1.area }.prefix(maxQuads).map(\.set)
    }

    /// Sets of three candidates of similar size at three corners of a photographed frame, each in
    /// clockwise order with the corner between the other two second, largest first (at most `maxQuads`).
    /// The frame is 540 × 720 points on Letter and 523 × 770 on A4; a phone's perspective changes its
    /// angles by up to ~30° and its sides' ratio by up to 1.6.
    private func chooseThree(in pools: [[Candidate]]) -> [[Candidate]] {
        var found: [(area: Double, set: [Candidate])] = []
        for pool in pools {
            let n = pool.count
            guard n >= 3 else { continue }
            for a in 0..<n { for b in (a + 1)..<n { for c in (b + 1)..<n {
                let set = [pool[a], pool[b], pool[c]]
                guard alike(set) else { continue }
                // The corner between the others is the vertex whose angle is nearest a right angle.
                let ordered = (0..<3).map { k in [set[(k + 1) % 3], set[k], set[(k + 2) % 3]] }
                    .min { abs(angle($0) - 90) < abs(angle($1) - 90) }!
                guard abs(angle(ordered) - 90) <= 30 else { continue }
                // A frame's side is 22 markers or more (540 points), 13 or more seen at a slant.
                let legs = [length(ordered[0], ordered[1]), length(ordered[1], ordered[2])]
                let side = set.map(\.side).reduce(0, +) / 3
                guard legs.max()! <= 1.5 * 1.6 * legs.min()!, legs.min()! >= 13 * side else { continue }
                // Clockwise on screen (y down): the turn from the first leg to the second is positive.
                let turn = (ordered[1].x - ordered[0].x) * (ordered[2].y - ordered[1].y) - (ordered[1].y - ordered[0].y) * (ordered[2].x - ordered[1].x)
                let set3 = turn > 0 ? ordered : ordered.reversed()
                guard !found.contains(where: { $0.set.map(\.x) == set3.map(\.x) && $0.set.map(\.y) == set3.map(\.y) }) else { continue }
                found.append((legs[0] * legs[1], set3))
            }}}
        }
        return found.sorted { $0.area > $1.area }.prefix(maxQuads).map(\.set)
    }

    /// The angle (degrees) at the middle of three candidates.
    private func angle(_ three: [Candidate]) -> Double {
        let ux = three[0].x - three[1].x, uy = three[0].y - three[1].y
        let vx = three[2].x - three[1].x, vy = three[2].y - three[1].y
        let cosine = (ux * vx + uy * vy) / max(1e-9, (ux * ux + uy * uy).squareRoot() * (vx * vx + vy * vy).squareRoot())
        return acos(max(-1, min(1, cosine))) * 180 / .pi
    }

    private func length(_ a: Candidate, _ b: Candidate) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }

    private func clockwise(_ set: [Candidate]) -> [Candidate] {
        let cx = set.map(\.x).reduce(0, +) / Double(set.count), cy = set.map(\.y).reduce(0, +) / Double(set.count)
        // In image coordinates (y down) increasing angle runs clockwise on screen.
        return set.sorted { atan2Degrees($0.y - cy, $0.x - cx) < atan2Degrees($1.y - cy, $1.x - cx) }
    }

    /// Whether each pair of opposite sides has lengths within a factor 1.6, as a photographed rectangle does.
    private func oppositeSidesAgree(_ q: [Candidate]) -> Bool {
        let sides = (0..<4).map { length(q[$0], q[($0 + 1) % 4]) }
        return max(sides[0], sides[2]) <= 1.6 * min(sides[0], sides[2]) && max(sides[1], sides[3]) <= 1.6 * min(sides[1], sides[3])
    }

    /// Area of the quadrilateral if it is convex, else nil.
    private func convexArea(_ q: [Candidate]) -> Double? {
        var sign = 0.0, area = 0.0
        for i in 0..<4 {
            let p = q[i], r = q[(i + 1) % 4], s = q[(i + 2) % 4]
            let cross = (r.x - p.x) * (s.y - r.y) - (r.y - p.y) * (s.x - r.x)
            if sign == 0 { sign = cross } else if sign * cross <= 0 { return nil }
            area += p.x * r.y - r.x * p.y
        }
        return abs(area) / 2
    }
}
