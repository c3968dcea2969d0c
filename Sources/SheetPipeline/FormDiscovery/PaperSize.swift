import SheetModel

/// The page size a draft template gets, in points, from the straightened page's aspect.
public enum PaperSize: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    case letter, a4
    /// No standard size is near: the paper's own aspect at Letter's width.
    case own

    public var description: String {
        switch self {
        case .letter: "Letter"
        case .a4: "A4"
        case .own: "own size"
        }
    }

    /// The standard size in points in the page's orientation; nil for `own`, which has no size of its own.
    func size(landscape: Bool) -> PageSize? {
        let portrait: PageSize
        switch self {
        case .letter: portrait = PageSize(width: 612, height: 792)
        case .a4: portrait = PageSize(width: 595, height: 842)
        case .own: return nil
        }
        return landscape ? PageSize(width: portrait.height, height: portrait.width) : portrait
    }

    /// The standard size's width over its height in the page's orientation; nil for `own`.
    public func proportions(landscape: Bool) -> Double? {
        size(landscape: landscape).map { $0.width / $0.height }
    }

    /// How far (relative) a page's aspect may be from a standard size's and still be taken as it: a phone's
    /// perspective and the page's crop leave a few percent.
    static let tolerance = 0.08

    /// How far (relative) a photographed page's proportions may be from the paper's, when the photo's corners
    /// give no camera to undo: measured by the sides' lengths on 130 simulated phone photos of Letter sheets
    /// (make_test_sheets.py's `phone` profile, whose corners are each moved at random, as no camera moves them),
    /// 1.8% at the median, 5.8% at the 95th percentile and 10.6% at most, more than the 4.6% from either size to
    /// their midpoint. Through a phone's camera `PageProportions` recovers them within 1% at the 95th
    /// percentile (`Tools/page_proportions_sim.py`), but a photo cropped off its centre, or taken through
    /// another lens square on along one side, is off by as much as the sides. A photo whose proportions are
    /// within this of the other size may be of either.
    static let perspectiveShift = 0.058

    /// True when a photographed page told as this size by its proportions `aspect` is within a phone's
    /// perspective of the other standard size too.
    public func photoMayBeTheOther(aspect: Double) -> Bool {
        guard let theirs = other?.size(landscape: aspect > 1) else { return false }
        return abs(aspect / (theirs.width / theirs.height) - 1) <= Self.perspectiveShift
    }

    /// The other standard size: the one a photo's proportions may have been mistaken for.
    public var other: PaperSize? {
        switch self {
        case .letter: .a4
        case .a4: .letter
        case .own: nil
        }
    }

    /// The nearest of Letter and A4, in the page's orientation, when its aspect (width / height) is within
    /// `tolerance` of one; otherwise Letter's width and the page's own height.
    static func nearest(aspect: Double) -> (PaperSize, PageSize) {
        let landscape = aspect > 1
        let candidates: [(PaperSize, PageSize)] = [PaperSize.letter, .a4].compactMap { paper in paper.size(landscape: landscape).map { (paper, $0) } }
        let scored = candidates.map { candidate -> (PaperSize, PageSize, Double) in
            let own = candidate.1.width / candidate.1.height
            return (candidate.0, candidate.1, abs(aspect / own - 1))
        }
        if let best = scored.min(by: { $0.2 < $1.2 }), best.2 <= tolerance { return (best.0, best.1) }
        let width = 612.0
        return (.own, PageSize(width: width, height: (width / aspect).rounded()))
    }
}
