import OCRKit
import SheetModel

/// A sheet matched to its template: where every template point lies in the image.
public struct AlignedSheet: Sendable {
    public let template: SheetTemplate
    /// Template points → image pixels, from the corner markers alone: what a flat page would be.
    public let homography: Homography
    /// Template points → image pixels, following the paper: the homography, corrected where the printed
    /// lines say the page bends. Cells are cut through this.
    public let mapping: PageMapping
    public let report: AlignmentReport
    /// Fields whose printed box is not where `mapping` puts it: a cell cut there would read the wrong ink.
    public let misplacedFields: Set<String>

    public init(template: SheetTemplate, homography: Homography, mapping: PageMapping? = nil, report: AlignmentReport,
                misplacedFields: Set<String> = []) {
        self.template = template
        self.homography = homography
        self.mapping = mapping ?? PageMapping(homography: homography)
        self.report = report
        self.misplacedFields = misplacedFields
    }
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
        if let missing = markers.missing { return try align(image, threeMarkers: markers, missing: missing) }
        let orientations = markers.ringFound ? [markers] : (0..<4).map { markers.rotated(by: $0) }
        var mark: (quad: MarkerQuad, read: TemplateMark.Read)?
        for quad in orientations {
            if let read = readMark(image, quad) { mark = (quad, read); break }
        }
        if mark == nil && requested == nil { return try markedThroughItsFit(image, orientations: orientations) }
        let template = try self.template(markedBy: mark?.read)

        // Without a readable mark and without the ring, try every orientation and keep the best fit.
        let candidates = mark.map { [$0.quad] } ?? orientations
        var best: AlignedSheet?
        for quad in candidates {
            guard let h = Homography(from: SheetFrame(page: template.page).markerCenters, to: quad.corners) else { continue }
            let candidate = fitted(image, template: template, homography: h, quarterTurns: quad.quarterTurns, markRead: mark != nil)
            if best == nil || candidate.report.quality > best!.report.quality { best = candidate }
        }
        guard let best else { throw .markersMissing(found: 4) }
        return try followingThePaper(best, image: image)
    }

    /// A mark the markers' homography does not read (a fold through its row bends it off the straight line
    /// between the markers by more than `readMark`'s search reaches), read again through the page fitted as
    /// each template it could be: those whose frame is wider than tall exactly when the markers are. The
    /// page is fitted as for a known template (`followingThePaper`: the smooth fit and the crease), and the
    /// template taken is the one whose mark, read through its own fit, names it. The mark's CRC decides,
    /// never how well a template's box lines fit: a mark that reads only as another template, or as none in
    /// the library, still refuses.
    func markedThroughItsFit(_ image: GrayBuffer, orientations: [MarkerQuad]) throws(AlignmentError) -> AlignedSheet {
        var misread: TemplateMark.Read?
        for quad in orientations {
            for template in library.templates where template.hasMarkers && Self.framed(quad, like: template) {
                guard let h = Homography(from: SheetFrame(page: template.page).markerCenters, to: quad.corners) else { continue }
                let flat = fitted(image, template: template, homography: h, quarterTurns: quad.quarterTurns, markRead: true)
                guard let paper = try? followingThePaper(flat, image: image),
                      let read = readMark(image, template: template, mapping: paper.mapping) else { continue }
                if read.idHash == TemplateMark.idHash(template.id) && read.version == template.version { return paper }
                if misread == nil { misread = read }
            }
        }
        // A mark read, but not as the template whose fit read it: its own error when it names none in the library.
        if let misread { _ = try template(markedBy: misread) }
        throw .markNotRead
    }

    /// Whether the markers' quad is wider than tall exactly when the template's frame is (a square frame
    /// goes with either): a page turned a quarter is another page, whatever its mark.
    static func framed(_ quad: MarkerQuad, like template: SheetTemplate) -> Bool {
        let c = quad.corners, frame = SheetFrame(page: template.page)
        let seen = (c[0].distance(to: c[1]) + c[3].distance(to: c[2])) / (c[0].distance(to: c[3]) + c[1].distance(to: c[2]))
        let printed = frame.frameWidth / (frame.markerCenters[3].y - frame.markerCenters[0].y)
        return (seen - 1) * (printed - 1) >= 0
    }

    /// A sheet seen by three markers. The fourth corner a parallelogram gives can be tens of points off
    /// on a photo (perspective), so it is found again where the printed box lines say (`completingTheFrame`),
    /// for the template the mark names; when the mark is not readable before (a top corner missing), for
    /// each template it could be, the mark then read through the completed frame must name it.
    func align(_ image: GrayBuffer, threeMarkers quad: MarkerQuad, missing: Int) throws(AlignmentError) -> AlignedSheet {
        let markBefore = readMark(image, quad)
        let templates: [SheetTemplate]
        if let markBefore {
            templates = [try template(markedBy: markBefore)]
        } else {
            templates = requested.map { [$0] } ?? library.templates.filter(\.hasMarkers)
        }
        var best: AlignedSheet?
        var firstError: AlignmentError?
        for template in templates {
            let markers = SheetFrame(page: template.page).markerCenters
            guard let h = completingTheFrame(image, template: template, quad: quad, missing: missing) else { continue }
            var markRead = markBefore != nil
            if !markRead {
                let completed = MarkerQuad(corners: markers.map(h.apply), ringFound: true)
                let mark = readMark(image, completed)
                do {
                    guard try self.template(markedBy: mark).id == template.id else { continue }
                } catch {
                    if firstError == nil { firstError = error }
                    continue
                }
                markRead = mark != nil
            }
            let candidate = fitted(image, template: template, homography: h, quarterTurns: quad.quarterTurns, markRead: markRead)
            if best == nil || candidate.report.quality > best!.report.quality { best = candidate }
        }
        guard let best else { throw firstError ?? .markersMissing(found: 3) }
        return try followingThePaper(best, image: image, markersSeen: (0..<4).filter { $0 != missing })
    }

    /// The template a sheet's mark names; with a template requested, the one requested, which a mark read
    /// must not contradict.
    func template(markedBy mark: TemplateMark.Read?) throws(AlignmentError) -> SheetTemplate {
        if let requested {
            if let mark, mark.idHash != TemplateMark.idHash(requested.id) {
                throw .wrongTemplate(expected: requested.id, found: library.template(markHash: mark.idHash)?.id ?? "unknown")
            }
            if let mark, mark.version != requested.version {
                throw .wrongVersion(template: requested.id, expected: requested.version, found: mark.version)
            }
            return requested
        }
        guard let mark else { throw .markNotRead }
        guard let found = library.template(markHash: mark.idHash, version: mark.version) else {
            if let other = library.template(markHash: mark.idHash) {
                throw .wrongVersion(template: other.id, expected: other.version, found: mark.version)
            }
            throw .unknownMark(version: mark.version)
        }
        return found
    }

    /// The flat page a homography describes, with its share of box lines found.
    func fitted(_ image: GrayBuffer, template: SheetTemplate, homography h: Homography, quarterTurns: Int, markRead: Bool) -> AlignedSheet {
        let quality = boxLineQuality(image, template: template, homography: h)
        let center = Point(x: template.page.width / 2, y: template.page.height / 2)
        let report = AlignmentReport(quality: quality, quarterTurns: quarterTurns, scale: h.localScale(at: center), markRead: markRead)
        return AlignedSheet(template: template, homography: h, report: report)
    }

    /// Where the markers' homography misses a printed line by more than this (points), the page is taken
    /// as bent and its shape fitted. Under it, lines are where a flat page puts them within what finding
    /// them on a phone photo can tell, and the homography alone is kept.
    public var flatTolerance = 1.5
    /// A field whose lines lie farther than this (points) from where the fitted mapping puts them is
    /// misplaced: half the margin its cell is cut with, the most the handwriting cleaner looks around.
    public var misplacedTolerance = 2.0
    /// Sheets with more misplaced fields than this share are refused: no smooth page explains them.
    public var misplacedShare = 0.25

    /// Refines the markers' fit from the printed box lines. A close look first: on a flat page every line
    /// is within a point or so of where the homography puts it, and nothing more is done. Otherwise a look
    /// far around each field (a bow moves print by up to ~15 points), a stiff fit of the page's shape, a
    /// close look through it and a supple fit; and the same again with a crease where a straight line
    /// splits what the smooth fit leaves (`folded`), kept when it finds clearly more of the box lines
    /// (`creaseGain`). Then every field's box is checked against the result: a
    /// field whose box is not where its cell will be cut is named (`misplacedFields`), and a sheet with
    /// many such fields is refused, naming them.
    /// Only the markers seen (`markersSeen`, template order) pin the correction: a missing corner's place
    /// is the homography's guess.
    func followingThePaper(_ flat: AlignedSheet, image: GrayBuffer, markersSeen: [Int] = [0, 1, 2, 3]) throws(AlignmentError) -> AlignedSheet {
        // The markers are on the paper too, and the homography places them exactly: the correction
        // vanishes there, so a layout moved farther than a bend moves print is not explained away.
        let frame = SheetFrame(page: flat.template.page)
        let anchors = markersSeen.map { frame.markerCenters[$0] }.flatMap { c in
            [PageWarp.Sample(at: c, axis: .x, offset: 0, weight: 10), PageWarp.Sample(at: c, axis: .y, offset: 0, weight: 10)]
        }
        return try followingThePaper(flat, image: image, anchors: anchors, area: fieldArea(flat.template, frame: frame))
    }

    /// The same, pinned by `anchors` (where the page is known to lie: the markers seen, or a form's
    /// landmarks found) over `area`.
    func followingThePaper(_ flat: AlignedSheet, image: GrayBuffer, anchors: [PageWarp.Sample], area: Rect) throws(AlignmentError) -> AlignedSheet {
        let template = flat.template
        // A close look first: on a flat page every line is within a point or so of the homography's place.
        let first = PrintedLineFinder(search: 3, scale: 1).find(in: image, template: template, mapping: flat.mapping)
        let offsets = first.flatMap(\.samples).map { abs($0.offset) }.sorted()
        let foundShare = Double(first.map(\.samples.count).reduce(0, +)) / Double(max(1, first.map(\.expected).reduce(0, +)))
        var mapping = flat.mapping
        var lines = first
        var bent: (wide: [PageWarp.Sample], anchors: [PageWarp.Sample], area: Rect, close: PrintedLineFinder)?
        let p90 = offsets.isEmpty ? .infinity : offsets[offsets.count * 9 / 10]
        if p90 > flatTolerance || foundShare < 0.9 {
            let wide = PrintedLineFinder(search: 14, scale: 1).find(in: image, template: template, mapping: flat.mapping)
            let close = PrintedLineFinder(search: 4, scale: 2)
            if let coarse = PageWarp.fit(wide.flatMap(\.samples) + anchors, over: area, spacing: 72, stiffness: 30) {
                lines = close.find(in: image, template: template, mapping: PageMapping(homography: flat.homography, warp: coarse))
                if let fine = PageWarp.fit(lines.flatMap(\.samples) + anchors, over: area, spacing: 54, stiffness: 3) {
                    mapping = PageMapping(homography: flat.homography, warp: fine)
                }
            }
            bent = (wide.flatMap(\.samples) + anchors, anchors, area, close)
        }
        var misplaced = lines.filter { isMisplaced($0, mapping: mapping) }.map(\.field)
        var quality = mapping.isFlat ? flat.report.quality : boxLineQuality(image, template: template, mapping: mapping)
        // A fold is looked for only where it could be kept: a smooth fit that finds all but a `creaseGain`
        // of the lines leaves a crease nothing to earn (and a flat page never gets here).
        if let bent, quality + creaseGain <= 1,
           let fold = folded(image, template: template, homography: flat.homography, wide: bent.wide, anchors: bent.anchors,
                             area: bent.area, close: bent.close) {
            let foldMisplaced = fold.lines.filter { isMisplaced($0, mapping: fold.mapping) }.map(\.field)
            let foldQuality = boxLineQuality(image, template: template, mapping: fold.mapping)
            if foldQuality >= quality + creaseGain && foldMisplaced.count <= misplaced.count {
                mapping = fold.mapping
                misplaced = foldMisplaced
                quality = foldQuality
            }
        }
        if quality < minimumQuality {
            throw misplaced.isEmpty ? .poorFit(quality: quality) : .pageNotExplained(fields: misplaced)
        }
        if Double(misplaced.count) > misplacedShare * Double(template.fields.count) {
            throw .pageNotExplained(fields: misplaced)
        }
        var report = flat.report
        report.quality = quality
        return AlignedSheet(template: template, homography: flat.homography, mapping: mapping, report: report,
                            misplacedFields: Set(misplaced))
    }

    /// A fold is taken only when it finds at least this much more of the box lines (share of
    /// `boxLineQuality`'s probes) than the smooth fit: two more parameters must earn their place.
    public var creaseGain = 0.01
    /// What the smooth fit leaves must shrink by this share with a crease along the best line before the
    /// page is looked at again as folded.
    public var creaseSplit = 0.8

    /// The page as folded: the straight line that best splits what a stiff smooth fit of the wide look
    /// leaves (`PageCrease.search`), and, when a bend along it explains clearly more of the lines, the
    /// same two fits as for a smooth page (stiff from the wide look, supple from a close look through it)
    /// with the bend fitted along. Nil when no line splits the residuals.
    func folded(_ image: GrayBuffer, template: SheetTemplate, homography: Homography, wide: [PageWarp.Sample],
                anchors: [PageWarp.Sample], area: Rect, close: PrintedLineFinder)
        -> (mapping: PageMapping, lines: [PrintedLineFinder.FieldLines])? {
        guard let found = PageCrease.search(wide, over: area, spacing: 72, stiffness: 30),
              found.misfit < creaseSplit * found.smoothMisfit,
              let (coarse, coarseCrease) = PageWarp.fit(wide, over: area, spacing: 72, stiffness: 30, crease: found.crease) else { return nil }
        // The wide look finds a neighbour's line as often as a bend moves print, and tells the crease's
        // angle poorly; a close look through the fold found gives lines good to a fraction of a point,
        // and the line is looked for again in them.
        let first = close.find(in: image, template: template,
                               mapping: PageMapping(homography: homography, warp: coarse, crease: coarseCrease))
        guard let again = PageCrease.search(first.flatMap(\.samples) + anchors, over: area, spacing: 72, stiffness: 30),
              let (coarse2, crease2) = PageWarp.fit(first.flatMap(\.samples) + anchors, over: area, spacing: 72, stiffness: 30,
                                                    crease: again.crease) else { return nil }
        let lines = close.find(in: image, template: template,
                               mapping: PageMapping(homography: homography, warp: coarse2, crease: crease2))
        guard let (fine, crease) = PageWarp.fit(lines.flatMap(\.samples) + anchors, over: area, spacing: 54, stiffness: 3,
                                                crease: again.crease) else { return nil }
        return (PageMapping(homography: homography, warp: fine, crease: crease), lines)
    }

    /// A field's box is misplaced when under half its lines are found, or (where their place tells) the
    /// lines found lie, at their median, farther than `misplacedTolerance` from where the mapping puts them.
    func isMisplaced(_ lines: PrintedLineFinder.FieldLines, mapping: PageMapping) -> Bool {
        guard !lines.samples.isEmpty, 2 * lines.samples.count >= lines.expected else { return true }
        guard lines.placeTells else { return false }
        let residuals = lines.samples.map { s -> Double in
            let d = mapping.displacement(at: s.at)
            return abs(s.offset - (s.axis == .x ? d.x : d.y))
        }.sorted()
        return residuals[residuals.count / 2] > misplacedTolerance
    }

    /// The markers' frame, grown to take in every field and the space beside it.
    func fieldArea(_ template: SheetTemplate, frame: SheetFrame) -> Rect {
        let rects = template.fields.map(\.rect) + [Rect(x: frame.markerCenters[0].x, y: frame.markerCenters[0].y,
                                                         width: frame.frameWidth, height: frame.markerCenters[3].y - frame.markerCenters[0].y)]
        let x0 = max(0, rects.map(\.x).min()!), y0 = max(0, rects.map(\.y).min()!)
        let x1 = min(template.page.width, rects.map(\.maxX).max()!), y1 = min(template.page.height, rects.map(\.maxY).max()!)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Reads the 32 mark cells along the line between the top markers. Cells are compared with the
    /// solid top-right marker (black) and the paper just below the mark (white), so lighting does not matter.
    ///
    /// A bent page moves the mark off the straight line between the markers, by up to ~9 points in its
    /// middle (a cell is 11): when the straight line reads nothing, the row is looked for shifted and
    /// sagging, a few points at a time. The mark's CRC tells a true read from a shifted misread.
    func readMark(_ image: GrayBuffer, _ quad: MarkerQuad) -> TemplateMark.Read? {
        let unit = [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1)]
        guard let frame = Homography(from: unit, to: quad.corners) else { return nil }
        return readMark(image, place: frame.apply)
    }

    /// The mark read through a page fitted as `template`: frame units are placed on its page, then in the
    /// image through `mapping` (which follows a fold the straight line between the markers does not).
    func readMark(_ image: GrayBuffer, template: SheetTemplate, mapping: PageMapping) -> TemplateMark.Read? {
        let c = SheetFrame(page: template.page).markerCenters
        return readMark(image) { f in
            mapping.apply(Point(x: c[0].x + f.x * (c[1].x - c[0].x), y: c[0].y + f.y * (c[3].y - c[0].y)))
        }
    }

    /// The mark read with frame units placed in the image by `place`: along the row first, then shifted
    /// and sagging a few points at a time.
    private func readMark(_ image: GrayBuffer, place: (Point) -> Point) -> TemplateMark.Read? {
        if let read = readMark(image, place, shift: 0, sag: 0, along: 0) { return read }
        // In frame units: the frame is ~540 points wide and its height ~720, so 0.005 is about 3 points.
        for shift in [-0.005, 0.005, -0.01, 0.01, -0.015, 0.015] {
            for sag in [0.0, -0.005, 0.005] {
                for along in [0.0, -0.005, 0.005] {
                    if let read = readMark(image, place, shift: shift, sag: sag, along: along) { return read }
                }
            }
        }
        return nil
    }

    /// The mark read with its row bowed down by `shift` at its middle (`sag` more toward its right end,
    /// as much less toward its left) and along by `along`, in frame units; the markers themselves stay put.
    private func readMark(_ image: GrayBuffer, _ place: (Point) -> Point, shift: Double, sag: Double, along: Double)
        -> TemplateMark.Read? {
        func value(_ u: Double, _ v: Double) -> Double {
            let bend = 4 * u * (1 - u)
            let p = place(Point(x: u + along * bend, y: v + (shift + sag * (2 * u - 1)) * bend))
            return image.sample(p.x, p.y)
        }
        let du = 1.0 / 48 / 4
        let cells = (0..<TemplateMark.bitCount).map { i -> Double in
            let u = SheetFrame.markCellCenterU(i)
            return (value(u - du, 0) + value(u, 0) + value(u + du, 0)) / 3
        }
        let paper = (0..<TemplateMark.bitCount).map { value(SheetFrame.markCellCenterU($0), 0.025) }.sorted()[TemplateMark.bitCount / 2]
        // The top-right marker is black; when it is not there (curled, covered), another solid one.
        guard let black = [value(1, 0), value(1, 1), value(0, 1)].first(where: { paper - $0 > 40 }) else { return nil }
        let threshold = (black + paper) / 2
        return TemplateMark.decode(cells.map { $0 < threshold })
    }

    /// The share of points along the fields' printed borders where a dark line is found within 1.5
    /// points of where the fit puts it (darker than 75% of the paper on either side).
    func boxLineQuality(_ image: GrayBuffer, template: SheetTemplate, homography: Homography) -> Double {
        boxLineQuality(image, template: template, mapping: PageMapping(homography: homography))
    }

    func boxLineQuality(_ image: GrayBuffer, template: SheetTemplate, mapping: PageMapping) -> Double {
        BoxLineProbes(template, step: 3).share(in: image, through: mapping, within: 1.5)
    }
}
