import SheetModel

/// The true proportions of a rectangular page from its four corners in a photo, through the camera that took
/// it: a pinhole with square pixels and its principal point at the image's centre, as a phone's camera is
/// (its lens distortion is corrected before the photo is saved).
///
/// The lengths of a photographed page's sides are not its proportions: tilted 25° toward the far edge, a page
/// looks about 10% shorter, more than the 9% between Letter and A4. The corners m₁ (top-left), m₂ (top-right),
/// m₃ (bottom-left), m₄ (bottom-right), taken about the image's centre, fix the directions of the page's two
/// sides as the camera sees them, each up to one common scale (n₂ = k₂m₂ − m₁ and n₃ = k₃m₃ − m₁ with
/// k₂ = (m₁×m₄)·m₃ / (m₂×m₄)·m₃ and k₃ = (m₁×m₄)·m₂ / (m₃×m₄)·m₂). The sides are at right angles, which
/// gives the focal length, f² = −(n₂ₓn₃ₓ + n₂ᵧn₃ᵧ) / (n₂𝓏n₃𝓏), and equally long in the camera's frame once
/// scaled by the page's width and height, which gives
///
///     (width / height)² = (n₂ₓ² + n₂ᵧ² + f²n₂𝓏²) / (n₃ₓ² + n₃ᵧ² + f²n₃𝓏²)
///
/// (Zhang and He, "Whiteboard scanning and image enhancement", Digital Signal Processing 17, 2007).
/// A photo whose page has a pair of sides nearly parallel to the photo's plane leaves f all but undetermined
/// (a corner a pixel off moves it by half), and the proportions still depend on it: f is then what a phone's
/// main camera has (`typicalFocal`). Photographed through a 2× or an ultra-wide lens at such an angle, a page
/// may be sized wrong: `template new --paper` says which.
struct PageProportions {
    /// A phone's main camera in 35 mm terms is 24–28 mm against the 43.3 mm diagonal of 35 mm film: its focal
    /// length is about 0.6 of the image's diagonal in pixels.
    static let typicalFocal = 0.6
    /// Focal lengths (in image diagonals) a photo's corners are believed for: from an ultra-wide lens (13 mm,
    /// 0.30) to a phone's 3× camera (77 mm, 1.78), with room either side. Outside it the corners say too little
    /// (a photo taken square on, or cropped off its centre) and `typicalFocal` is used.
    static let believedFocal = 0.25...2.5
    /// How far out of the photo's plane both of the page's axes must point (the height over the length of
    /// n₂ and n₃, about a degree with a main camera) for the corners to give the focal length. Chosen on
    /// simulated photos, corners 1.5 pixels off (`Tools/page_proportions_sim.py`): through a main camera, with no
    /// such bar 17 of 3,000 came out more than 4.6% off (half the way to the other size), up to 37%, through a
    /// focal length the corners' error made; with it none, 3.9% at most (by the sides' lengths, 567). Through a
    /// 2× or 3× lens it lets 25 and 47 in 1,000 through that far (14 and 21 without it; 250 and 271 by the sides).
    static let leastTilt = 0.02

    /// The page's width over its height, and the focal length (in image diagonals) the corners gave, nil when
    /// `typicalFocal` was used.
    struct Estimate: Equatable {
        let aspect: Double
        let focal: Double?
    }

    /// - Parameters:
    ///   - corners: the page's top-left, top-right, bottom-right and bottom-left corners, in pixels.
    ///   - width, height: the photo's size in pixels, whose centre is taken as the principal point.
    static func estimate(corners c: [Point], width: Int, height: Int) -> Estimate? {
        guard c.count == 4, width > 0, height > 0 else { return nil }
        let cx = Double(width) / 2, cy = Double(height) / 2
        let diagonal = (Double(width * width + height * height)).squareRoot()
        // About the centre and in diagonals, so that the products below stay near 1.
        func h(_ p: Point) -> [Double] { [(p.x - cx) / diagonal, (p.y - cy) / diagonal, 1] }
        let m1 = h(c[0]), m2 = h(c[1]), m4 = h(c[2]), m3 = h(c[3])
        let m14 = cross(m1, m4)
        let d2 = dot(cross(m2, m4), m3), d3 = dot(cross(m3, m4), m2)
        guard abs(d2) > 1e-12, abs(d3) > 1e-12 else { return nil }
        let k2 = dot(m14, m3) / d2, k3 = dot(m14, m2) / d3
        let n2 = (0..<3).map { k2 * m2[$0] - m1[$0] }, n3 = (0..<3).map { k3 * m3[$0] - m1[$0] }
        var focal: Double?
        let zz = n2[2] * n3[2]
        let tilt = min(abs(n2[2]) / (n2[0] * n2[0] + n2[1] * n2[1]).squareRoot(), abs(n3[2]) / (n3[0] * n3[0] + n3[1] * n3[1]).squareRoot())
        if abs(zz) > 1e-12, tilt > leastTilt {
            let f2 = -(n2[0] * n3[0] + n2[1] * n3[1]) / zz
            if f2 > 0, believedFocal.contains(f2.squareRoot()) { focal = f2.squareRoot() }
        }
        let f = focal ?? typicalFocal
        let along = n2[0] * n2[0] + n2[1] * n2[1] + f * f * n2[2] * n2[2]
        let down = n3[0] * n3[0] + n3[1] * n3[1] + f * f * n3[2] * n3[2]
        guard along > 0, down > 0 else { return nil }
        return Estimate(aspect: (along / down).squareRoot(), focal: focal)
    }

    private static func cross(_ a: [Double], _ b: [Double]) -> [Double] {
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    }

    private static func dot(_ a: [Double], _ b: [Double]) -> Double { a[0] * b[0] + a[1] * b[1] + a[2] * b[2] }
}
