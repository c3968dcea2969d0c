import OCRKit
import SheetModel

/// A sheet matched to its template: where every template point lies in the image.
public struct AlignedSheet: Sendable {
    public let template: SheetTemplate
    /// Template points → image pixels.
    public let homography: Homography
    public let report: AlignmentReport
}

/// Fits the template to the markers, identifies the template from its mark, and measures how well the
/// fit lands on the printed box lines before any field is read.
public struct SheetAligner: Sendable {
    public let library: TemplateLibrary
    /// When set, the sheet must be this template (its mark, if readable, must agree).
    public let requested: SheetTemplate?
    /// Fits that find fewer of the box lines than this are refused.
    public var minimumQuality = 0.7

    public init(library: TemplateLibrary, requested: SheetTemplate? = nil) {
        self.library = library
        self.requested = requested
    }

    /// Tries the detector's marker quads in order and keeps the first that aligns. When none does, the
    /// error is the one for the most likely quad.
    public func align(_ image: GrayBuffer, candidates: [MarkerQuad]) throws(AlignmentError) -> AlignedSheet {
        var firstError: AlignmentError?
        for quad in candidates {
            do {
                return try align(image, markers: quad)
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        throw firstError ?? .noMarkers
    }

    public func align(_ image: GrayBuffer, markers: MarkerQuad) throws(AlignmentError) -> AlignedSheet {
        let orientations = markers.ringFound ? [markers] : (0..<4).map { markers.rotated(by: $0) }
        var mark: (quad: MarkerQuad, hash: UInt16, version: Int)?
        for quad in orientations {
            if let read = readMark(image, quad) { mark = (quad, read.idHash, read.version); break }
        }

        let template: SheetTemplate
        if let requested {
            if let mark, mark.hash != TemplateMark.idHash(requested.id) {
                throw .wrongTemplate(expected: requested.id, found: library.template(markHash: mark.hash)?.id ?? "unknown")
            }
            if let mark, mark.version != requested.version {
                throw .wrongVersion(template: requested.id, expected: requested.version, found: mark.version)
            }
            template = requested
        } else {
            guard let mark else { throw .markNotRead }
            guard let found = library.template(markHash: mark.hash, version: mark.version) else {
                if let other = library.template(markHash: mark.hash) {
                    throw .wrongVersion(template: other.id, expected: other.version, found: mark.version)
                }
                throw .unknownMark(version: mark.version)
            }
            template = found
        }

        // Without a readable mark and without the ring, try every orientation and keep the best fit.
        let candidates = mark.map { [$0.quad] } ?? orientations
        var best: AlignedSheet?
        for quad in candidates {
            guard let h = Homography(from: SheetFrame(page: template.page).markerCenters, to: quad.corners) else { continue }
            let quality = boxLineQuality(image, template: template, homography: h)
            let center = Point(x: template.page.width / 2, y: template.page.height / 2)
            let report = AlignmentReport(quality: quality, quarterTurns: quad.quarterTurns,
                                         scale: h.localScale(at: center), markRead: mark != nil)
            if best == nil || quality > best!.report.quality {
                best = AlignedSheet(template: template, homography: h, report: report)
            }
        }
        guard let best else { throw .markersMissing(found: 4) }
        guard best.report.quality >= minimumQuality else { throw .poorFit(quality: best.report.quality) }
        return best
    }

    /// Reads the 32 mark cells along the line between the top markers. Cells are compared with the
    /// solid top-right marker (black) and the paper just below the mark (white), so lighting does not matter.
    func readMark(_ image: GrayBuffer, _ quad: MarkerQuad) -> (idHash: UInt16, version: Int)? {
        let unit = [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1)]
        guard let frame = Homography(from: unit, to: quad.corners) else { return nil }
        func value(_ u: Double, _ v: Double) -> Double {
            let p = frame.apply(Point(x: u, y: v))
            return image.sample(p.x, p.y)
        }
        let du = 1.0 / 48 / 4
        let cells = (0..<TemplateMark.bitCount).map { i -> Double in
            let u = SheetFrame.markCellCenterU(i)
            return (value(u - du, 0) + value(u, 0) + value(u + du, 0)) / 3
        }
        let black = value(1, 0)
        let paper = (0..<TemplateMark.bitCount).map { value(SheetFrame.markCellCenterU($0), 0.025) }.sorted()[TemplateMark.bitCount / 2]
        guard paper - black > 40 else { return nil }
        let threshold = (black + paper) / 2
        return TemplateMark.decode(cells.map { $0 < threshold })
    }

    /// The share of points along the fields' printed borders where a dark line is found within 1.5
    /// points of where the fit puts it (darker than 75% of the paper on either side).
    func boxLineQuality(_ image: GrayBuffer, template: SheetTemplate, homography: Homography) -> Double {
        var hits = 0, total = 0
        func probe(_ p: Point, normal: Point) {
            func at(_ t: Double) -> Double {
                let q = homography.apply(Point(x: p.x + normal.x * t, y: p.y + normal.y * t))
                return image.sample(q.x, q.y)
            }
            let line = [-1.5, -0.75, 0, 0.75, 1.5].map(at).min()!
            let paper = max(at(-4), at(4), at(-5), at(5))
            total += 1
            if line < paper * 0.75 && paper - line > 20 { hits += 1 }
        }
        for field in template.fields {
            let r = field.rect
            let step = 3.0
            var x = r.x + 2
            while x < r.maxX - 2 {
                probe(Point(x: x, y: r.y), normal: Point(x: 0, y: 1))
                probe(Point(x: x, y: r.maxY), normal: Point(x: 0, y: 1))
                x += step
            }
            var y = r.y + 2
            while y < r.maxY - 2 {
                probe(Point(x: r.x, y: y), normal: Point(x: 1, y: 0))
                probe(Point(x: r.maxX, y: y), normal: Point(x: 1, y: 0))
                y += step
            }
        }
        return total > 0 ? Double(hits) / Double(total) : 0
    }
}
