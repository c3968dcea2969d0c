import OCRKit
import SheetModel

/// Finds the sheet of paper in a scan or a photo and straightens it: a flat scan is the page (only a small
/// rotation is taken out); a photo's page is the bright quadrilateral against a darker background, warped
/// by the homography of its four corners to an upright rectangle.
struct PageFinder {
    /// Where the page was found, in the input image's pixels, and the straightened page (8-bit gray).
    struct Found {
        let image: Image
        /// Corners top-left, top-right, bottom-right, bottom-left; nil for a flat scan.
        let corners: [Point]?
        /// Degrees a flat scan was rotated by to deskew it.
        let deskew: Double
    }

    /// The analysis of the page's outline is made on a copy at most about this many pixels on its long
    /// side: enough to place a side to a pixel of the full image once a line is fitted along it.
    var analysisSide = 1200
    /// A bright region whose bounding box spans this share of the image both ways is the page of a flat
    /// scan (or a photo with the page filling the frame); smaller, it is a page lying on something.
    var flatShare = 0.94
    /// A bright region covering less than this share of the image is not taken as the page.
    var smallestShare = 0.12

    func find(in input: Image) throws(FormDiscoveryError) -> Found {
        do {
            let gray = try input.toGray()
            guard gray.width >= 64, gray.height >= 64 else { throw FormDiscoveryError.noPage(detail: "the image is only \(gray.width)×\(gray.height) pixels") }
            var halvings = 0
            while max(gray.width, gray.height) >> (halvings + 1) >= analysisSide { halvings += 1 }
            let small = try gray.halved(times: halvings)
            let factor = Double(gray.width) / Double(small.width)
            let buffer = try small.grayBuffer()
            let threshold = Self.otsu(buffer)
            // What is not background is page: the background is the dark that reaches the image's edge, and
            // the page the largest region left. Not the largest bright region: a frame printed near the
            // paper's edge encloses more paper than lies outside it.
            let background = try small.thresholded(below: threshold).borderConnected()
            guard let page = try background.inverted().componentMasks(minimumArea: 16).max(by: { $0.area < $1.area }) else {
                throw FormDiscoveryError.noPage(detail: "nothing bright enough to be paper")
            }
            if !spansImage(page.bounds, small) {
                guard Double(page.area) >= smallestShare * Double(small.width * small.height) else {
                    throw FormDiscoveryError.noPage(detail: "the brightest region covers only \(Int(100 * Double(page.area) / Double(small.width * small.height)))% of the image")
                }
                guard let corners = Self.corners(of: page) else { throw FormDiscoveryError.noPage(detail: "the paper's outline has no four sides") }
                return try photographed(gray, corners: corners, factor: factor)
            }
            // The page and a light table can both be brighter than the first split, which then parts ink from
            // paper: split the bright pixels again, and take a page found there when the two are clearly apart.
            if let lighter = Self.otsuAbove(threshold, buffer, apart: 25) {
                let table = try small.thresholded(below: lighter).borderConnected()
                if let page = try table.inverted().componentMasks(minimumArea: 16).max(by: { $0.area < $1.area }),
                   !spansImage(page.bounds, small), Double(page.area) >= 2 * smallestShare * Double(small.width * small.height),
                   let corners = Self.corners(of: page) {
                    return try photographed(gray, corners: corners, factor: factor)
                }
            }
            return try flat(gray)
        } catch let error as FormDiscoveryError {
            throw error
        } catch let error as ImagingError {
            throw .imaging(error)
        } catch {
            throw .noPage(detail: "\(error)")
        }
    }

    /// Whether a region's bounding box spans the image both ways, as a flat scan's page does.
    private func spansImage(_ b: PixelRect, _ image: Image) -> Bool {
        Double(b.width) >= flatShare * Double(image.width) && Double(b.height) >= flatShare * Double(image.height)
    }

    private func photographed(_ gray: Image, corners: [Point], factor: Double) throws -> Found {
        let full = corners.map { Point(x: $0.x * factor, y: $0.y * factor) }
        return Found(image: try warp(gray, corners: full), corners: full, deskew: 0)
    }

    /// Otsu's threshold among the pixels at or above `threshold`, when the two classes it splits them into
    /// differ by `apart` gray levels or more; nil otherwise (an evenly lit page has no second split).
    static func otsuAbove(_ threshold: Int, _ buffer: GrayBuffer, apart: Double) -> Int? {
        let bright = buffer.pixels.filter { Int($0) >= threshold }
        guard bright.count >= 100 else { return nil }
        let split = otsu(GrayBuffer(width: bright.count, height: 1, pixels: bright))
        var below = (0.0, 0.0), above = (0.0, 0.0)
        for p in bright {
            if Int(p) < split { below.0 += Double(p); below.1 += 1 } else { above.0 += Double(p); above.1 += 1 }
        }
        guard below.1 > 0, above.1 > 0, above.0 / above.1 - below.0 / below.1 >= apart else { return nil }
        return split
    }

    /// A flat scan, deskewed when Leptonica is confident of a rotation worth taking out.
    private func flat(_ gray: Image) throws -> Found {
        let binary = try gray.thresholded(below: 128)
        if let skew = binary.skew(), skew.confidence >= 2.5, abs(skew.degrees) >= 0.1 {
            return Found(image: try gray.rotated(degrees: skew.degrees), corners: nil, deskew: skew.degrees)
        }
        return Found(image: gray, corners: nil, deskew: 0)
    }

    /// The quadrilateral `corners` warped to an upright rectangle as wide and tall as its sides are long.
    private func warp(_ gray: Image, corners c: [Point]) throws -> Image {
        let width = (c[0].distance(to: c[1]) + c[3].distance(to: c[2])) / 2
        let height = (c[0].distance(to: c[3]) + c[1].distance(to: c[2])) / 2
        let target = [Point(x: 0, y: 0), Point(x: width, y: 0), Point(x: width, y: height), Point(x: 0, y: height)]
        guard let h = Homography(from: target, to: c) else { throw FormDiscoveryError.noPage(detail: "the paper's corners are collinear") }
        let source = try gray.grayBuffer()
        let straight = source.resample(Rect(x: 0, y: 0, width: width, height: height), margin: 0, scale: 1, through: h)
        return try Image(straight)
    }

    /// Otsu's threshold: the gray level that best splits the histogram into two classes (paper and
    /// background, or paper and ink). Written here rather than through Leptonica: `otsuAbove` splits a
    /// filtered list of pixels (the bright ones), which Leptonica's image thresholds do not take, and its
    /// `numaSplitDistribution` would be a C round trip through a Numa for a 256-bin loop.
    static func otsu(_ buffer: GrayBuffer) -> Int {
        var histogram = [Double](repeating: 0, count: 256)
        for p in buffer.pixels { histogram[Int(p)] += 1 }
        let total = Double(buffer.pixels.count)
        let sum = histogram.enumerated().reduce(0.0) { $0 + Double($1.offset) * $1.element }
        var weightBelow = 0.0, sumBelow = 0.0, best = 0.0, threshold = 128
        for t in 0..<256 {
            weightBelow += histogram[t]
            guard weightBelow > 0, weightBelow < total else { continue }
            sumBelow += Double(t) * histogram[t]
            let meanBelow = sumBelow / weightBelow, meanAbove = (sum - sumBelow) / (total - weightBelow)
            let between = weightBelow * (total - weightBelow) * (meanBelow - meanAbove) * (meanBelow - meanAbove)
            if between > best { best = between; threshold = t + 1 }
        }
        return threshold
    }

    /// The page region's four corners (top-left, top-right, bottom-right, bottom-left, in the mask's image
    /// pixels): first the extreme points along the diagonals, then each side refitted as a straight line
    /// through its outline between them, so a dog-eared or shadowed corner does not place it.
    static func corners(of region: ComponentMask) -> [Point]? {
        let b = region.bounds
        func on(_ x: Int, _ y: Int) -> Bool { region.bits[y * b.width + x] }
        // Extremes along the diagonals: top-left minimises x + y, top-right maximises x − y, and so on.
        var best = (Int.max, Int.min, Int.min, Int.max)
        var rough = [Point](repeating: Point(x: 0, y: 0), count: 4)
        region.bits.withUnsafeBufferPointer { bits in
            for y in 0..<b.height {
                for x in 0..<b.width where bits[y * b.width + x] {
                    let sum = x + y, difference = x - y
                    if sum < best.0 { best.0 = sum; rough[0] = Point(x: Double(x), y: Double(y)) }
                    if difference > best.1 { best.1 = difference; rough[1] = Point(x: Double(x) + 1, y: Double(y)) }
                    if sum > best.2 { best.2 = sum; rough[2] = Point(x: Double(x) + 1, y: Double(y) + 1) }
                    if difference < best.3 { best.3 = difference; rough[3] = Point(x: Double(x), y: Double(y) + 1) }
                }
            }
        }
        // The outline's points along each side, from the middle 80% between its two rough corners.
        func samples(_ a: Point, _ c: Point, vertical: Bool, fromLow: Bool) -> [Point] {
            var points: [Point] = []
            let lo = vertical ? min(a.y, c.y) : min(a.x, c.x), hi = vertical ? max(a.y, c.y) : max(a.x, c.x)
            let span = hi - lo
            guard span > 10 else { return [] }
            let start = Int(lo + 0.1 * span), end = Int(hi - 0.1 * span)
            for t in start...end {
                if vertical {
                    guard t >= 0, t < b.height else { continue }
                    var x = fromLow ? 0 : b.width - 1
                    while x >= 0, x < b.width, !on(x, t) { x += fromLow ? 1 : -1 }
                    if x >= 0, x < b.width { points.append(Point(x: Double(x) + (fromLow ? 0 : 1), y: Double(t) + 0.5)) }
                } else {
                    guard t >= 0, t < b.width else { continue }
                    var y = fromLow ? 0 : b.height - 1
                    while y >= 0, y < b.height, !on(t, y) { y += fromLow ? 1 : -1 }
                    if y >= 0, y < b.height { points.append(Point(x: Double(t) + 0.5, y: Double(y) + (fromLow ? 0 : 1))) }
                }
            }
            return points
        }
        let sides = [
            fitLine(samples(rough[0], rough[1], vertical: false, fromLow: true), vertical: false),   // top
            fitLine(samples(rough[1], rough[2], vertical: true, fromLow: false), vertical: true),    // right
            fitLine(samples(rough[3], rough[2], vertical: false, fromLow: false), vertical: false),  // bottom
            fitLine(samples(rough[0], rough[3], vertical: true, fromLow: true), vertical: true),     // left
        ]
        var result: [Point] = []
        for k in 0..<4 {
            // Corner k lies between side k-1 (left for the top-left corner) and side k.
            let previous = sides[(k + 3) % 4], next = sides[k]
            if let p = previous, let n = next, let corner = intersect(p, n) {
                result.append(Point(x: corner.x + Double(b.x), y: corner.y + Double(b.y)))
            } else {
                result.append(Point(x: rough[k].x + Double(b.x), y: rough[k].y + Double(b.y)))
            }
        }
        // The four corners must make a convex quadrilateral of some size.
        for k in 0..<4 {
            let a = result[k], c = result[(k + 1) % 4], d = result[(k + 2) % 4]
            let cross = (c.x - a.x) * (d.y - c.y) - (c.y - a.y) * (d.x - c.x)
            if cross <= 0 { return nil }
        }
        return result
    }

    /// A line a·x + b·y = c fitted by least squares: y = m·x + k for a side that runs across, x = m·y + k
    /// for one that runs down. Points far from a first fit (a shadow, a thumb) are dropped and it is fitted again.
    private static func fitLine(_ points: [Point], vertical: Bool) -> (a: Double, b: Double, c: Double)? {
        func fit(_ pts: [Point]) -> (m: Double, k: Double)? {
            guard pts.count >= 5 else { return nil }
            let n = Double(pts.count)
            let u = pts.map { vertical ? $0.y : $0.x }, v = pts.map { vertical ? $0.x : $0.y }
            let su = u.reduce(0, +), sv = v.reduce(0, +)
            let suu = u.reduce(0) { $0 + $1 * $1 }, suv = zip(u, v).reduce(0) { $0 + $1.0 * $1.1 }
            let det = n * suu - su * su
            guard abs(det) > 1e-9 else { return nil }
            let m = (n * suv - su * sv) / det
            return (m, (sv - m * su) / n)
        }
        guard var line = fit(points) else { return nil }
        let residual = { (p: Point) in abs((vertical ? p.x : p.y) - (line.m * (vertical ? p.y : p.x) + line.k)) }
        let kept = points.filter { residual($0) <= 2 }
        if let refit = fit(kept), kept.count >= points.count / 2 { line = refit }
        // across: y = m x + k → -m x + y = k; down: x = m y + k → x - m y = k
        return vertical ? (1, -line.m, line.k) : (-line.m, 1, line.k)
    }

    private static func intersect(_ p: (a: Double, b: Double, c: Double), _ q: (a: Double, b: Double, c: Double)) -> Point? {
        let det = p.a * q.b - p.b * q.a
        guard abs(det) > 1e-9 else { return nil }
        return Point(x: (p.c * q.b - p.b * q.c) / det, y: (p.a * q.c - p.c * q.a) / det)
    }
}
