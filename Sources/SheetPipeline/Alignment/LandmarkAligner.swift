import Foundation
import OCRKit
import SheetModel

/// How well one form printed elsewhere fits a sheet: the share of its landmarks found where its best
/// homography puts them.
public struct FormFit: Sendable, Equatable {
    public let template: String
    public let fit: Double
    public init(template: String, fit: Double) { self.template = template; self.fit = fit }
}

/// Aligns a sheet without our markers to a template of paper printed elsewhere, by the form's own printed
/// lines (`SheetTemplate.landmarks`), and tells which such form a sheet is by how well each fits.
///
/// A first homography comes from the form's outermost long lines: the image's long straight lines are
/// found with Leptonica's morphology (`Image.longRuns`), the outermost ones of each direction cross in four
/// corners, and the template's outermost landmarks in four more, matched for each quarter turn. Each
/// landmark is then looked for near where that homography puts it, stretch by stretch (a profile averaged
/// along the line, so a tally crossing it moves nothing), and the homography corrected by a weighted least
/// squares fit of all of them, outliers down-weighted and then dropped: a stroke of ink along a line, or a
/// neighbouring line taken for it, does not pull the fit. Three rounds, each looking closer. The page's
/// shape is then fitted from the fields' box lines as for our own sheets (`SheetAligner.followingThePaper`),
/// pinned at the landmarks found instead of at markers, and refused the same way when the fit is poor.
public struct LandmarkAligner: Sendable {
    public let library: TemplateLibrary
    /// When set, the sheet must be this template; nothing else is tried.
    public let requested: SheetTemplate?
    /// A form is taken only when at least this share of its landmarks is found where its fit puts them.
    public var minimumFit = 0.75
    /// …and when it fits by at least this much better than the runner-up.
    public var margin = 0.15
    /// A best fit below this share has the image's lines looked for a second time, finer and thicker, and
    /// the better of the two looks is kept: a form found at all fits 0.99 or so, and a fit just past
    /// `minimumFit` can be a ruled table taken one cell off.
    public var secondLook = 0.9

    public init(library: TemplateLibrary, requested: SheetTemplate? = nil) {
        self.library = library
        self.requested = requested
    }

    /// The templates a sheet without markers may be.
    var candidates: [SheetTemplate] {
        if let requested { return [requested] }
        return library.templates.filter { !$0.hasMarkers }
    }

    /// The sheet aligned to the form that fits it, with a clear margin over the next; refused with the
    /// nearest forms and their fit otherwise.
    public func align(_ image: Image, gray: GrayBuffer) throws(AlignmentError) -> AlignedSheet {
        func fitted(_ lines: ImageLines) -> [(fit: FormFit, aligned: LandmarkFit)] {
            var fits: [(fit: FormFit, aligned: LandmarkFit)] = []
            for template in candidates {
                let best = fit(template, lines: lines, gray: gray)
                fits.append((FormFit(template: template.id, fit: best?.fit ?? 0), best ?? LandmarkFit.none))
            }
            return fits.sorted { $0.fit.fit > $1.fit.fit }
        }
        var fits = fitted((try? ImageLines(image)) ?? ImageLines(horizontal: [], vertical: []))
        // A phone photo's thin lines can fade when it is halved to the working scale, and a turn of more than
        // about 5° (with the corners' perspective) breaks their long runs into pieces too short to be kept:
        // when no form fits well (`secondLook`), the lines are looked for again at a finer scale, thickened
        // enough across to stay whole up to 12°, and the better look is kept. A sheet the first look fits at
        // 90% or more is aligned as before.
        if (fits.first?.fit.fit ?? 0) < secondLook, let tilted = try? ImageLines(image, workingLongSide: 2000, tilt: 12) {
            let again = fitted(tilted)
            if (again.first?.fit.fit ?? 0) > (fits.first?.fit.fit ?? 0) { fits = again }
        }
        let nearest = Array(fits.prefix(3).map(\.fit))
        guard let first = fits.first, first.fit.fit >= minimumFit, let homography = first.aligned.homography,
              let template = candidates.first(where: { $0.id == first.fit.template }) else {
            throw .noFormFits(nearest: nearest)
        }
        if fits.count > 1 && fits[1].fit.fit > first.fit.fit - margin { throw .formsAlike(nearest: nearest) }
        let aligner = SheetAligner(library: library, requested: template)
        let flat = aligner.fitted(gray, template: template, homography: homography, quarterTurns: first.aligned.quarterTurns, markRead: false)
        return try aligner.followingThePaper(flat, image: gray, anchors: first.aligned.anchors,
                                             area: Self.area(template))
    }

    /// The template's fields and landmarks together: where the page's shape is fitted.
    static func area(_ template: SheetTemplate) -> Rect {
        let points = template.fields.flatMap { [Point(x: $0.rect.x, y: $0.rect.y), Point(x: $0.rect.maxX, y: $0.rect.maxY)] }
            + (template.landmarks ?? []).flatMap { [$0.start, $0.end] }
        let x0 = max(0, points.map(\.x).min() ?? 0), y0 = max(0, points.map(\.y).min() ?? 0)
        let x1 = min(template.page.width, points.map(\.x).max() ?? template.page.width)
        let y1 = min(template.page.height, points.map(\.y).max() ?? template.page.height)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// A template's landmarks fitted to a sheet.
    struct LandmarkFit {
        var homography: Homography?
        var quarterTurns = 0
        /// Share of the landmarks' probes found within 1.5 points of the fit.
        var fit = 0.0
        /// The landmark stretches found, with what the homography leaves of their offsets: what pins the
        /// page's shape.
        var anchors: [PageWarp.Sample] = []
        static let none = LandmarkFit()
    }

    /// The template's best fit: from the outline of the image's outermost long lines, and when that fit
    /// falls short, from outlines one line further in on some sides (a rule printed above the form, a
    /// table's edge in the photo, that the template does not know). Nil when no outline can be hypothesised.
    func fit(_ template: SheetTemplate, lines: ImageLines, gray: GrayBuffer) -> LandmarkFit? {
        guard let corners = Self.outerCorners(template) else { return nil }
        let stretches = Self.stretches(template)
        var best: LandmarkFit?
        for (index, seen) in lines.outlines().enumerated() {
            guard let fit = fit(template, corners: corners, seen: seen, stretches: stretches, gray: gray) else { continue }
            if best == nil || fit.fit > best!.fit { best = fit }
            if index == 0 && fit.fit >= minimumFit { break }
        }
        return best
    }

    /// The template's fit from one outline seen, over the quarter turns its aspect allows. Each gets a
    /// first, coarse round on a third of the stretches; only the turn that round finds most of the form in
    /// is refined further.
    func fit(_ template: SheetTemplate, corners: [Point], seen: [Point], stretches: [Stretch], gray: GrayBuffer) -> LandmarkFit? {
        let width = corners[0].distance(to: corners[1]), height = corners[0].distance(to: corners[3])
        let seenWidth = (seen[0].distance(to: seen[1]) + seen[3].distance(to: seen[2])) / 2
        let seenHeight = (seen[0].distance(to: seen[3]) + seen[1].distance(to: seen[2])) / 2
        let coarse = Self.every(3, of: stretches)
        var best: (turns: Int, round: Round)?
        for turns in 0..<4 {
            // The form's outline must have the aspect of what was seen, turned: a perspective photo changes
            // it by far less than a factor 1.4.
            let aspect = (turns % 2 == 0 ? seenWidth / seenHeight : seenHeight / seenWidth) / (width / height)
            guard aspect > 0.7 && aspect < 1.43, let start = Homography(from: corners, to: (0..<4).map { seen[($0 + turns) % 4] }),
                  let first = round(start, coarse, page: template.page, gray: gray, search: 8, scale: 1) else { continue }
            if best == nil || first.inliers > best!.round.inliers { best = (turns, first) }
        }
        guard let best else { return nil }
        var current = best.round
        for (search, set) in [(4.0, Self.every(2, of: stretches)), (2.5, stretches)] {
            guard let next = round(current.homography, set, page: template.page, gray: gray, search: search, scale: 2) else { return nil }
            current = next
        }
        let fit = Self.probes(template).share(in: gray, through: PageMapping(homography: current.homography), within: 1.5)
        return LandmarkFit(homography: current.homography, quarterTurns: best.turns, fit: fit, anchors: current.anchors)
    }

    static func every<T>(_ step: Int, of items: [T]) -> [T] { stride(from: 0, to: items.count, by: step).map { items[$0] } }

    /// The four corners where the template's outermost long landmarks cross, clockwise from top-left: the
    /// topmost and bottommost of the horizontal ones at least half as long as the longest, the leftmost and
    /// rightmost such vertical ones.
    static func outerCorners(_ template: SheetTemplate) -> [Point]? {
        let marks = (template.landmarks ?? []).filter { $0.from.count == 2 && $0.to.count == 2 }
        let rows = marks.filter(\.isHorizontal), columns = marks.filter { !$0.isHorizontal }
        guard let longestRow = rows.map(\.length).max(), let longestColumn = columns.map(\.length).max() else { return nil }
        let ys = rows.filter { $0.length >= longestRow / 2 }.map(\.start.y)
        let xs = columns.filter { $0.length >= longestColumn / 2 }.map(\.start.x)
        guard let top = ys.min(), let bottom = ys.max(), let left = xs.min(), let right = xs.max(),
              bottom - top > 1, right - left > 1 else { return nil }
        return [Point(x: left, y: top), Point(x: right, y: top), Point(x: right, y: bottom), Point(x: left, y: bottom)]
    }

    /// A stretch of a landmark measured as one: where it is says where the line is across its direction.
    struct Stretch {
        let landmark: Landmark
        /// Its extent along the line, in points.
        let from: Double, to: Double
        var axis: PageWarp.Sample.Axis { landmark.isHorizontal ? .y : .x }
        var middle: Point {
            let m = (from + to) / 2
            return landmark.isHorizontal ? Point(x: m, y: landmark.start.y) : Point(x: landmark.start.x, y: m)
        }
    }

    /// Landmarks cut into stretches of about `length` points, 3 points in from each end (where lines meet,
    /// neither tells its place alone); at most `most`, taken evenly, so a form with hundreds of cells costs
    /// no more to align than one with a few dozen.
    static func stretches(_ template: SheetTemplate, length: Double = 36, most: Int = 240) -> [Stretch] {
        var all: [Stretch] = []
        for landmark in template.landmarks ?? [] where landmark.from.count == 2 && landmark.to.count == 2 {
            let a = landmark.isHorizontal ? min(landmark.start.x, landmark.end.x) : min(landmark.start.y, landmark.end.y)
            let parts = max(1, Int((landmark.length / length).rounded()))
            let step = landmark.length / Double(parts)
            for p in 0..<parts {
                let from = a + Double(p) * step + 3, to = a + Double(p + 1) * step - 3
                if to - from >= 6 { all.append(Stretch(landmark: landmark, from: from, to: to)) }
            }
        }
        guard all.count > most else { return all }
        return (0..<most).map { all[$0 * all.count / most] }
    }

    /// Probes every 3 points along each landmark: how much of the form a fit lands on.
    static func probes(_ template: SheetTemplate) -> BoxLineProbes {
        var probes: [BoxLineProbes.Probe] = []
        for landmark in template.landmarks ?? [] where landmark.from.count == 2 && landmark.to.count == 2 {
            let a = landmark.start, b = landmark.end
            let normal = landmark.isHorizontal ? Point(x: 0, y: 1) : Point(x: 1, y: 0)
            var t = 2.0
            while t <= landmark.length - 2 {
                let f = t / landmark.length
                probes.append(BoxLineProbes.Probe(at: Point(x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f), normal: normal))
                t += 3
            }
        }
        return BoxLineProbes(probes: probes)
    }

    /// One round of refinement: the homography corrected, the stretches found that it leaves within 1.5
    /// points (the anchors the page's shape is pinned at) and how many they are.
    struct Round {
        var homography: Homography
        var anchors: [PageWarp.Sample]
        var inliers: Int { anchors.count }
    }

    /// Every stretch looked for within `search` points of where the homography puts it, and the homography
    /// corrected by all of them; nil when too few are found on either axis to correct it.
    func round(_ h: Homography, _ stretches: [Stretch], page: PageSize, gray: GrayBuffer, search: Double, scale: Double) -> Round? {
        let mapping = PageMapping(homography: h)
        let samples = stretches.compactMap { s in
            Self.offset(of: s, in: gray, through: mapping, search: search, scale: scale).map {
                PageWarp.Sample(at: s.middle, axis: s.axis, offset: $0)
            }
        }
        guard samples.filter({ $0.axis == .x }).count >= 4, samples.filter({ $0.axis == .y }).count >= 4,
              let (correction, residuals) = Self.correction(samples, page: page), let next = h.after(correction) else { return nil }
        let anchors = zip(samples, residuals).compactMap { s, r in
            abs(r) <= 1.5 ? PageWarp.Sample(at: s.at, axis: s.axis, offset: r, weight: 1) : nil
        }
        return Round(homography: next, anchors: anchors)
    }

    /// Where the stretch's line lies across its direction, in points from where `mapping` puts it; nil when
    /// no line stands out there. The band around it is resampled upright and averaged along the line; the
    /// line is the darkest row within `search`, a little favouring the nearest, darker than the band's paper
    /// by a third of the ink's contrast and than the band 2.5 points to either side by a sixth (an edge of a
    /// shaded area is not a line).
    static func offset(of stretch: Stretch, in gray: GrayBuffer, through mapping: PageMapping, search: Double, scale: Double) -> Double? {
        let margin = search + 3.5
        let m = stretch.middle, half = (stretch.to - stretch.from) / 2
        let rect = stretch.landmark.isHorizontal ? Rect(x: m.x - half, y: m.y, width: 2 * half, height: 0)
                                                 : Rect(x: m.x, y: m.y - half, width: 0, height: 2 * half)
        let band = gray.resample(rect, margin: margin, scale: scale, through: mapping)
        let (paper, ink) = PrintedLineFinder.paperAndInk(band)
        let contrast = paper - ink
        guard contrast > 30 else { return nil }
        let w = band.width, h = band.height, inset = Int((margin * scale).rounded())
        let horizontal = stretch.landmark.isHorizontal
        // Across the line: rows of a horizontal one, columns of a vertical one.
        let count = horizontal ? h : w
        let alongRange = horizontal ? (min(inset, w - 1)...max(min(inset, w - 1), w - 1 - inset))
                                    : (min(inset, h - 1)...max(min(inset, h - 1), h - 1 - inset))
        let level = Int(paper)
        let profile = band.pixels.withUnsafeBufferPointer { px in
            (0..<count).map { k -> Double in
                var sum = 0
                for a in alongRange { sum += max(0, level - Int(horizontal ? px[k * w + a] : px[a * w + k])) }
                return Double(sum) / Double(alongRange.count)
            }
        }
        let centre = margin * scale - 0.5
        let reach = search * scale
        var peak = -1, score = -Double.infinity
        for k in max(1, Int((centre - reach).rounded(.up)))...min(count - 2, Int((centre + reach).rounded(.down))) {
            let s = profile[k] * (1 - 0.3 * abs(Double(k) - centre) / reach)
            if s > score { score = s; peak = k }
        }
        guard peak > 0 else { return nil }
        let side = Int((2.5 * scale).rounded())
        let beside = max(peak - side >= 0 ? profile[peak - side] : 0, peak + side < count ? profile[peak + side] : 0)
        guard profile[peak] >= contrast / 3, profile[peak] - beside >= contrast / 6 else { return nil }
        let a = profile[peak - 1], b = profile[peak], c = profile[peak + 1]
        let denominator = a - 2 * b + c
        let refined = Double(peak) + (denominator < 0 ? 0.5 * (a - c) / denominator : 0)
        return (refined - centre) / scale
    }

    /// The small homography of template points (near the identity) that best moves each sample's point by
    /// its offset along its axis, by iteratively reweighted least squares (samples more than a point off
    /// count less, more than 3 points off not at all after the first rounds), with what it leaves of each
    /// sample's offset. Linearised: the offsets are a few points on a page of hundreds.
    static func correction(_ samples: [PageWarp.Sample], page: PageSize) -> (Homography, [Double])? {
        let cx = page.width / 2, cy = page.height / 2, s = max(page.width, page.height) / 2
        let rows = samples.map { sample -> [Double] in
            let u = (sample.at.x - cx) / s, v = (sample.at.y - cy) / s
            return sample.axis == .x ? [u, v, 1, 0, 0, 0, -u * u, -u * v] : [0, 0, 0, u, v, 1, -u * v, -v * v]
        }
        let targets = samples.map { $0.offset / s }
        var weights = [Double](repeating: 1, count: samples.count)
        var p = [Double](repeating: 0, count: 8)
        var residuals = samples.map(\.offset)
        for round in 0..<5 {
            var a = [Double](repeating: 0, count: 64), b = [Double](repeating: 0, count: 8)
            for (row, (t, w)) in zip(rows, zip(targets, weights)) where w > 0 {
                for i in 0..<8 {
                    b[i] += w * row[i] * t
                    for j in 0..<8 { a[i * 8 + j] += w * row[i] * row[j] }
                }
            }
            for i in 0..<8 { a[i * 8 + i] += 1e-6 }
            guard let solved = PageWarp.choleskySolve(a, b, 8) else { return nil }
            p = solved
            residuals = zip(rows, targets).map { row, t in (t - zip(row, p).reduce(0) { $0 + $1.0 * $1.1 }) * s }
            weights = residuals.map { r in
                let r = abs(r)
                if round >= 2 && r > 3 { return 0 }
                return r <= 1 ? 1 : 1 / r
            }
        }
        let normalised = [1 + p[0], p[1], p[2], p[3], 1 + p[4], p[5], p[6], p[7], 1]
        let toUnit = [1 / s, 0, -cx / s, 0, 1 / s, -cy / s, 0, 0, 1]
        let fromUnit = [s, 0, cx, 0, s, cy, 0, 0, 1]
        guard let c = Homography(matrix: Homography.product(fromUnit, Homography.product(normalised, toUnit))) else { return nil }
        return (c, residuals)
    }
}

extension Landmark {
    var start: Point { Point(x: from[0], y: from[1]) }
    var end: Point { Point(x: to[0], y: to[1]) }
    var isHorizontal: Bool { from[1] == to[1] }
    var length: Double { start.distance(to: end) }
}

/// The long straight printed lines of an image, in its pixels: what a first homography for a form without
/// markers is taken from.
struct ImageLines {
    struct Line {
        /// A point on the line and its slope across its direction (dy/dx for a horizontal one).
        var centre: Point
        var slope: Double
        /// How much of its length was found (pixels), pieces of one line added together.
        var coverage: Double
        var horizontal: Bool

        /// Where the line crosses the perpendicular through `t` (x for a horizontal line).
        func across(at t: Double) -> Double {
            horizontal ? centre.y + slope * (t - centre.x) : centre.x + slope * (t - centre.y)
        }
    }

    var horizontal: [Line]
    var vertical: [Line]
    /// The image's size, for where the outermost lines are compared.
    var width = 0.0, height = 0.0

    init(horizontal: [Line], vertical: [Line]) { self.horizontal = horizontal; self.vertical = vertical }

    /// The lines found in a copy halved to at most `workingLongSide` pixels: binarised against its own
    /// background, runs of at least a twentieth of the long side kept (`Image.longRuns`), each component
    /// thin enough to be a line taken as one through its centroid along its principal axis, and pieces of
    /// one line joined.
    /// With `tilt` (degrees), each run is thickened across enough for a line turned that far from the axis
    /// to stay one run of the kept length, rather than by 5 pixels (about 5° at the kept length).
    init(_ image: Image, workingLongSide: Int = 1000, tilt: Double? = nil) throws(ImagingError) {
        var halvings = 0
        while max(image.width, image.height) >> halvings > workingLongSide { halvings += 1 }
        let small = try image.halved(times: halvings)
        let factor = Double(small.width) / Double(image.width)
        let binary = try small.backgroundNormalized().thresholded(below: 150)
        let length = max(24, max(small.width, small.height) / 20)
        let thickening = tilt.map { max(5, Int((Double(length) * tan($0 * .pi / 180)).rounded(.up)) + 2) } ?? 5
        func lines(_ horizontal: Bool) throws(ImagingError) -> [Line] {
            let runs = try binary.longRuns(horizontal: horizontal, length: length, thickening: thickening)
            let pieces = try runs.components { box in (horizontal ? box.width : box.height) >= length }
            return pieces.compactMap { c -> Line? in
                let extent = Double(horizontal ? c.bounds.width : c.bounds.height)
                // A dark region (a photo's background, a shaded block) is no line: lines are thin.
                guard Double(c.area) / extent <= Double(14 + thickening - 5) else { return nil }
                let slope = horizontal ? c.covariance / max(c.varianceX, 1e-9) : c.covariance / max(c.varianceY, 1e-9)
                let centre = Point(x: (c.centroidX + 0.5) / factor, y: (c.centroidY + 0.5) / factor)
                return Line(centre: centre, slope: slope, coverage: extent / factor, horizontal: horizontal)
            }
        }
        self.init(horizontal: Self.joined(try lines(true)), vertical: Self.joined(try lines(false)))
        width = Double(image.width); height = Double(image.height)
    }

    /// Pieces of one line (broken by a gap, or by a tilt the thickening could not bridge) joined: a piece
    /// within 4 pixels of a longer line's course, at nearly its slope, adds its length to it.
    static func joined(_ lines: [Line]) -> [Line] {
        var joined: [Line] = []
        for line in lines.sorted(by: { $0.coverage > $1.coverage }) {
            let along = line.horizontal ? line.centre.x : line.centre.y
            if let k = joined.firstIndex(where: { abs($0.across(at: along) - line.across(at: along)) <= 4 && abs($0.slope - line.slope) < 0.03 }) {
                joined[k].coverage += line.coverage
            } else {
                joined.append(line)
            }
        }
        return joined
    }

    /// Outlines to hypothesise a form's place from, each the corners where four long lines cross, clockwise
    /// from the image's top-left: first the outermost (the topmost and bottommost horizontal lines at least
    /// half as long as the longest, the leftmost and rightmost such vertical ones), then with sides taken one
    /// such line further in. Empty when either direction has fewer than two lines apart.
    func outlines() -> [[Point]] {
        func long(_ lines: [Line], at middle: Double) -> [Line] {
            guard let longest = lines.map(\.coverage).max() else { return [] }
            return lines.filter { $0.coverage >= longest / 2 }.sorted { $0.across(at: middle) < $1.across(at: middle) }
        }
        let rows = long(horizontal, at: width / 2), columns = long(vertical, at: height / 2)
        guard rows.count >= 2, columns.count >= 2 else { return [] }
        // Each side its outermost line or the next one in, the outermost on every side first.
        var choices: [(Int, Int, Int, Int)] = []
        for t in 0...1 {
            for b in [rows.count - 1, rows.count - 2] {
                for l in 0...1 {
                    for r in [columns.count - 1, columns.count - 2] where t < b && l < r { choices.append((t, b, l, r)) }
                }
            }
        }
        return choices.compactMap { t, b, l, r in
            guard rows[b].across(at: width / 2) - rows[t].across(at: width / 2) > 20,
                  columns[r].across(at: height / 2) - columns[l].across(at: height / 2) > 20 else { return nil }
            return corners(top: rows[t], bottom: rows[b], left: columns[l], right: columns[r])
        }
    }

    func corners(top: Line, bottom: Line, left: Line, right: Line) -> [Point]? {
        func cross(_ h: Line, _ v: Line) -> Point? {
            // y = hy + hs (x - hx), x = vx + vs (y - vy)
            let denominator = 1 - h.slope * v.slope
            guard abs(denominator) > 1e-6 else { return nil }
            let x = (v.centre.x + v.slope * (h.centre.y - h.slope * h.centre.x - v.centre.y)) / denominator
            return Point(x: x, y: h.centre.y + h.slope * (x - h.centre.x))
        }
        guard let a = cross(top, left), let b = cross(top, right), let c = cross(bottom, right), let d = cross(bottom, left) else { return nil }
        return [a, b, c, d]
    }
}
