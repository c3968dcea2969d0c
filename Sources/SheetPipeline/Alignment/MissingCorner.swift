import OCRKit
import SheetModel

extension SheetAligner {
    /// The homography of a sheet seen by three markers: the three fix six of its eight degrees of freedom;
    /// the other two, where the fourth marker lies, are searched for where the printed box lines say.
    ///
    /// The fourth corner a parallelogram gives misses the true one by 31 points at the median and up to
    /// ~85 on phone photos (perspective; measured on 360 corners of the flat phone sets 4001 and 6101–6103),
    /// farther than `followingThePaper` looks for a line (14 points). So it is searched for: coarsely
    /// (4-point steps over ±96, lines accepted within 2.5 points), then in 1-point steps, then in quarter
    /// points (within the 1.5 the quality measures). Moving the corner across x moves the vertical lines
    /// and across y the horizontal ones, so x is searched on the vertical lines alone and y on the
    /// horizontal ones, twice over, rather than every pair. The lines of every field the corner moves
    /// vote, so one row of boxes lining up with its neighbour's place cannot win against the rest.
    /// A curled corner's lines do not fit any homography; the flat rest of the page decides, and the
    /// page's shape is fitted afterwards as for any sheet.
    func completingTheFrame(_ image: GrayBuffer, template: SheetTemplate, quad: MarkerQuad, missing: Int) -> Homography? {
        let markers = SheetFrame(page: template.page).markerCenters
        guard let guess = Homography(from: markers, to: quad.corners) else { return nil }
        func homography(_ d: Point) -> Homography? {
            var corners = quad.corners
            corners[missing] = guess.apply(Point(x: markers[missing].x + d.x, y: markers[missing].y + d.y))
            return Homography(from: markers, to: corners)
        }
        // Only the lines a move of the corner moves by a fifth of it or more vote: the rest hardly tell.
        let probes = BoxLineProbes(template, step: 4).moved(by: markers[missing], from: markers[(missing + 2) % 4], atLeast: 0.2)
        let telling: [PageWarp.Sample.Axis: BoxLineProbes] = [.x: probes.telling(.x), .y: probes.telling(.y)]
        var d = Point(x: 0, y: 0)
        var found = false
        for (reach, step, tolerance) in [(96.0, 4.0, 2.5), (4, 1, 1.5), (1, 0.25, 1.5)] {
            let n = Int((reach / step).rounded())
            // Nearest the centre first, so a tie keeps the smaller move.
            let moves = (-n...n).sorted { abs($0) < abs($1) }
            for _ in 0..<2 {
                for axis in [PageWarp.Sample.Axis.x, .y] {
                    let centre = d
                    var best = -1.0
                    for k in moves {
                        var tried = centre
                        if axis == .x { tried.x += Double(k) * step } else { tried.y += Double(k) * step }
                        guard let h = homography(tried) else { continue }
                        let share = telling[axis]!.share(in: image, through: PageMapping(homography: h), within: tolerance)
                        if share > best { best = share; d = tried }
                    }
                    found = found || best > 0
                }
            }
        }
        return found ? homography(d) : nil

    }
}
