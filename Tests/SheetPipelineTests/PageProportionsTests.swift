import Foundation
import OCRKit
import SheetModel
import Testing
@testable import SheetPipeline

/// A page's true proportions from its corners in a phone's photo: the paper projected through a pinhole
/// camera (square pixels, principal point at the frame's centre, a main camera's 26 mm-equivalent lens) at
/// the tilts people hold a phone at, and told from them as Letter or A4.
@Suite struct PageProportionsTests {
    /// The corners of a `width` × `height` page (points) in a 3024 × 4032 photo taken from `tilt` degrees off
    /// square on, toward `azimuth`, turned `roll` degrees about the lens's axis, through a `lens` mm (35 mm
    /// terms) lens, the page filling about 70% of the frame's height square on.
    static func photographedCorners(width: Double, height: Double, tilt: Double, azimuth: Double, roll: Double,
                                    lens: Double = 26) -> [Point] {
        let frameWidth = 3024.0, frameHeight = 4032.0
        let focal = lens / 43.27 * (frameWidth * frameWidth + frameHeight * frameHeight).squareRoot()
        let (t, a, r) = (tilt * .pi / 180, azimuth * .pi / 180, roll * .pi / 180)
        let distance = focal * height / (0.7 * frameHeight)
        let aim = [width / 2, height / 2, 0.0]
        let lens = [aim[0] + distance * sin(t) * cos(a), aim[1] + distance * sin(t) * sin(a), -distance * cos(t)]
        func unit(_ v: [Double]) -> [Double] { let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).squareRoot(); return v.map { $0 / n } }
        let z = unit((0..<3).map { aim[$0] - lens[$0] })
        let x0 = unit([1 - z[0] * z[0], -z[0] * z[1], -z[0] * z[2]])
        let y0 = [z[1] * x0[2] - z[2] * x0[1], z[2] * x0[0] - z[0] * x0[2], z[0] * x0[1] - z[1] * x0[0]]
        let x = (0..<3).map { cos(r) * x0[$0] + sin(r) * y0[$0] }, y = (0..<3).map { -sin(r) * x0[$0] + cos(r) * y0[$0] }
        return [(0.0, 0.0), (width, 0), (width, height), (0, height)].map { corner in
            let d = [corner.0 - lens[0], corner.1 - lens[1], -lens[2]]
            let cx = x[0] * d[0] + x[1] * d[1] + x[2] * d[2], cy = y[0] * d[0] + y[1] * d[1] + y[2] * d[2]
            let cz = z[0] * d[0] + z[1] * d[1] + z[2] * d[2]
            return Point(x: focal * cx / cz + frameWidth / 2, y: focal * cy / cz + frameHeight / 2)
        }
    }

    /// Letter and A4 photographed square on and tilted up to 30° toward each side: the corners give the
    /// paper's proportions within 1%, and the paper is told right, where the sides' lengths alone are off by
    /// up to a seventh and take a Letter page tilted toward its far edge for A4.
    @Test(arguments: [(612.0, 792.0, PaperSize.letter), (595, 842, .a4)])
    func aTiltedPhotoStillTellsLetterFromA4(width: Double, height: Double, paper: PaperSize) throws {
        var sidesWrong = 0
        for tilt in stride(from: 0.0, through: 30, by: 5) {
            for azimuth in stride(from: 0.0, to: 360, by: 45) {
                let corners = Self.photographedCorners(width: width, height: height, tilt: tilt, azimuth: azimuth, roll: 6)
                let estimate = try #require(PageProportions.estimate(corners: corners, width: 3024, height: 4032))
                #expect(abs(estimate.aspect / (width / height) - 1) < 0.01, "tilt \(tilt)°, azimuth \(azimuth)°: \(estimate)")
                #expect(PaperSize.nearest(aspect: estimate.aspect).0 == paper, "tilt \(tilt)°, azimuth \(azimuth)°")
                let sides = (corners[0].distance(to: corners[1]) + corners[3].distance(to: corners[2]))
                    / (corners[0].distance(to: corners[3]) + corners[1].distance(to: corners[2]))
                if PaperSize.nearest(aspect: sides).0 != paper { sidesWrong += 1 }
            }
        }
        #expect(sidesWrong > 0, "the sides' lengths told every tilt right: the test shows nothing")
    }

    /// Tilted toward a side that is no axis of the page, both axes leave the photo's plane: the corners give
    /// the lens's focal length, whichever phone lens took it (ultra-wide to 3×), and the paper's proportions
    /// with it, within 1%. (Toward an axis only one axis tilts and the typical lens is used; at 45° the
    /// proportions hardly depend on the lens: neither would show a wrong focal length.)
    @Test(arguments: [13.0, 26, 52, 77])
    func theCornersGiveTheLensAndTheProportions(lens: Double) throws {
        for tilt in [12.0, 20, 30] {
            for azimuth in [20.0, 65, 110, 200, 290] {
                let corners = Self.photographedCorners(width: 612, height: 792, tilt: tilt, azimuth: azimuth, roll: -5, lens: lens)
                let estimate = try #require(PageProportions.estimate(corners: corners, width: 3024, height: 4032))
                let focal = try #require(estimate.focal, "tilt \(tilt)°, azimuth \(azimuth)°: no focal length")
                #expect(abs(focal / (lens / 43.27) - 1) < 0.02, "tilt \(tilt)°, azimuth \(azimuth)°: \(focal)")
                #expect(abs(estimate.aspect / (612.0 / 792) - 1) < 0.01, "tilt \(tilt)°, azimuth \(azimuth)°: \(estimate)")
            }
        }
    }

    /// Taken square on, the corners cannot give the focal length; the typical phone's is used, and the
    /// proportions are the sides'.
    @Test func aPhotoTakenSquareOnKeepsItsSidesProportions() throws {
        let corners = Self.photographedCorners(width: 612, height: 792, tilt: 0, azimuth: 0, roll: 3)
        let estimate = try #require(PageProportions.estimate(corners: corners, width: 3024, height: 4032))
        #expect(estimate.focal == nil)
        #expect(abs(estimate.aspect - 612.0 / 792) < 0.001)
    }

    /// `template new` on a Letter form photographed 25° off square on toward its side (so its sides' lengths
    /// say A4), upright and turned a quarter: the draft is Letter, with no doubt to ask about.
    @Test(arguments: [0, 1])
    func aTiltedPhotoOfALetterFormIsDraftedAsLetter(quarterTurns: Int) throws {
        let truth = try FormDiscoveryTests.clubForm()
        let render = try SheetRenderer(template: truth, dpi: 150).render().grayBuffer()
        let (w, h) = (truth.page.width, truth.page.height)
        // The 3024 × 4032 frame at half size: the same view, and the form's boxes still a few pixels wide.
        var corners = Self.photographedCorners(width: w, height: h, tilt: 25, azimuth: 0, roll: 4).map { Point(x: $0.x / 2, y: $0.y / 2) }
        var size = (1512, 2016)
        let sides = (corners[0].distance(to: corners[1]) + corners[3].distance(to: corners[2]))
            / (corners[0].distance(to: corners[3]) + corners[1].distance(to: corners[2]))
        #expect(PaperSize.nearest(aspect: sides).0 == .a4, "the sides say \(sides): the photo shows nothing")
        for _ in 0..<quarterTurns {
            corners = corners.map { Point(x: Double(size.1) - $0.y, y: $0.x) }
            size = (size.1, size.0)
        }
        let page = [Point(x: 0, y: 0), Point(x: w, y: 0), Point(x: w, y: h), Point(x: 0, y: h)]
        let back = try #require(Homography(from: page, to: corners)?.inverse)
        let s = 150.0 / 72
        var photo = GrayBuffer(width: size.0, height: size.1, fill: 70)
        for y in 0..<size.1 {
            for x in 0..<size.0 {
                let p = back.apply(Point(x: Double(x) + 0.5, y: Double(y) + 0.5))
                guard p.x >= 0, p.y >= 0, p.x < w, p.y < h else { continue }
                photo.pixels[y * size.0 + x] = UInt8(render.sample(p.x * s, p.y * s).rounded())
            }
        }
        let form = try FormDiscovery().discover(try Image(photo), id: "tilted", title: "Tilted", engine: try TesseractEngine(useDictionary: true, alternatives: false))
        #expect(form.quarterTurns == (4 - quarterTurns) % 4)
        #expect(form.paper == .letter && !form.paperInDoubt, "\(form.paper), proportions \(form.aspect)")
        #expect(abs(form.aspect / (w / h) - 1) < 0.015, "proportions \(form.aspect)")
    }

    /// Four corners on a line are no page.
    @Test func collinearCornersGiveNoEstimate() {
        let line = [Point(x: 0, y: 0), Point(x: 1, y: 1), Point(x: 2, y: 2), Point(x: 3, y: 3)]
        #expect(PageProportions.estimate(corners: line, width: 100, height: 100) == nil)
    }
}
