import Foundation
import OCRKit
import SheetModel
import Testing
@testable import SheetPipeline

/// `template new`'s discovery: a blank form printed elsewhere drawn from its template (so the truth of every
/// box is known), as a flat 300-dpi scan and as a phone photo (perspective, a quarter turn, a dark table),
/// turned back into a draft template whose boxes must fall on the form's.
///
/// How a field counts as found: one draft box has each of its four edges within the tolerance of the field's
/// rect, or — a comb, whose dividers close each digit's box — a run of draft boxes side by side tiles it (the
/// first's left edge and the last's right edge on the field's, every box's top and bottom on the field's, each
/// box starting where the one before ends). A draft box used by no field is an extra.
@Suite struct FormDiscoveryTests {
    static func clubForm() throws -> SheetTemplate {
        try TemplateLibrary.loadFile(Fixtures.testImages.appendingPathComponent("printed-elsewhere/club-lacrosse.json").path)
    }

    struct Match {
        var found: [String] = []
        var missing: [String] = []
        var extras: [Rect] = []
        /// The worst edge error over the fields found, in points.
        var worst = 0.0
    }

    static func match(_ truth: SheetTemplate, _ draft: SheetTemplate, tolerance: Double) -> Match {
        var result = Match()
        var used = Set<Int>()
        let boxes = draft.fields.map(\.rect)
        func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= tolerance }
        for field in truth.fields {
            let r = field.rect
            if let i = boxes.indices.first(where: { near(boxes[$0].x, r.x) && near(boxes[$0].y, r.y) && near(boxes[$0].maxX, r.maxX) && near(boxes[$0].maxY, r.maxY) }) {
                used.insert(i)
                result.found.append(field.id)
                let b = boxes[i]
                result.worst = max(result.worst, abs(b.x - r.x), abs(b.y - r.y), abs(b.maxX - r.maxX), abs(b.maxY - r.maxY))
                continue
            }
            let run = boxes.indices.filter { i in
                near(boxes[i].y, r.y) && near(boxes[i].maxY, r.maxY) && boxes[i].x >= r.x - tolerance && boxes[i].maxX <= r.maxX + tolerance
            }.sorted { boxes[$0].x < boxes[$1].x }
            let tiles = run.count > 1 && near(boxes[run.first!].x, r.x) && near(boxes[run.last!].maxX, r.maxX)
                && zip(run, run.dropFirst()).allSatisfy { near(boxes[$0].maxX, boxes[$1].x) }
            if tiles {
                used.formUnion(run)
                result.found.append(field.id)
                for i in run { result.worst = max(result.worst, abs(boxes[i].y - r.y), abs(boxes[i].maxY - r.maxY)) }
                result.worst = max(result.worst, abs(boxes[run.first!].x - r.x), abs(boxes[run.last!].maxX - r.maxX))
            } else {
                result.missing.append(field.id)
            }
        }
        result.extras = boxes.indices.filter { !used.contains($0) }.map { boxes[$0] }
        return result
    }

    @Test func aFlatScanOfTheBlankFormGivesItsBoxesWithinAMillimetre() throws {
        let truth = try Self.clubForm()
        let scan = try SheetRenderer(template: truth, dpi: 300).render()
        let form = try FormDiscovery().discover(scan, id: "club-draft", title: "Draft", engine: try TesseractEngine(useDictionary: true, alternatives: false))
        #expect(form.template.problems().isEmpty, "\(form.template.problems())")
        #expect(form.paper == .letter && form.template.page == truth.page)
        #expect(form.quarterTurns == 0 && form.corners == nil)
        let match = Self.match(truth, form.template, tolerance: 72 / 25.4)
        #expect(Double(match.found.count) >= 0.95 * Double(truth.fields.count), "missing \(match.missing)")
        #expect(match.extras.count <= 2, "extra boxes \(match.extras)")
        // The kinds a person would otherwise set by hand.
        let kinds = Dictionary(form.template.fields.map { ($0.rect.center.y.rounded(), $0.kind) }, uniquingKeysWith: { a, _ in a })
        #expect(kinds[132] == .text && kinds[180] == .checkbox, "\(kinds)")
        #expect(form.template.fields.first?.label == "Athlete", "\(form.template.fields.prefix(3).map { $0.label ?? "-" })")
    }

    @Test func aPhotoTurnedSidewaysIsStraightenedAndItsBoxesFoundWithinTwoMillimetres() throws {
        let truth = try Self.clubForm()
        let render = try SheetRenderer(template: truth, dpi: 150).render()
        let (photo, g) = try LandmarkAlignmentTests.photographed(render, dpi: 150, template: truth, quarterTurns: 1)
        let form = try FormDiscovery().discover(photo, id: "club-draft", title: "Draft", engine: try TesseractEngine(useDictionary: true, alternatives: false))
        #expect(form.template.problems().isEmpty, "\(form.template.problems())")
        #expect(form.corners != nil)
        #expect(form.paper == .letter && form.template.page == truth.page)
        let match = Self.match(truth, form.template, tolerance: 2 * 72 / 25.4)
        #expect(Double(match.found.count) >= 0.95 * Double(truth.fields.count), "missing \(match.missing), worst \(match.worst)")
        #expect(match.extras.count <= 2, "extra boxes \(match.extras)")

        // The draft aligns the photo it came from by its landmarks, every field's corners within 2 mm of the truth.
        let library = TemplateLibrary(entries: [TemplateLibrary.Entry(template: form.template, path: "club-draft.json")])
        let aligned = try LandmarkAligner(library: library).align(photo, gray: try photo.grayBuffer())
        #expect(aligned.template.id == "club-draft" && aligned.report.quarterTurns == 1)
        let error = LandmarkAlignmentTests.worstError(aligned, truth: g)
        #expect(error < 2 * 72 / 25.4, "worst field corner \(error) points off")
    }

    /// A landscape form whose frame, near the paper's edge, encloses more paper than lies outside it: the page
    /// is still the whole sheet, and its many small cells are found.
    @Test func aFramedLandscapeBoxScoreIsTakenWhole() throws {
        let truth = LandmarkAlignmentTests.markerless(try #require(try Fixtures.library().template(id: "basketball-box")), id: "club-box")
        let scan = try SheetRenderer(template: truth, dpi: 150).render()
        let form = try FormDiscovery().discover(scan, id: "club-draft", title: "Draft", engine: try TesseractEngine(useDictionary: true, alternatives: false))
        #expect(form.corners == nil && form.paper == .letter && form.template.page == truth.page)
        let match = Self.match(truth, form.template, tolerance: 72 / 25.4)
        #expect(Double(match.found.count) >= 0.95 * Double(truth.fields.count), "missing \(match.missing)")
        #expect(match.extras.count <= 2, "extra boxes \(match.extras)")
    }

    /// A photo on a light table (gray 200 against white paper): the first split parts ink from paper and
    /// table together, the second finds the page.
    @Test func aPhotoOnALightTableIsStillStraightened() throws {
        let truth = try Self.clubForm()
        let (photo, _) = try LandmarkAlignmentTests.photographed(try SheetRenderer(template: truth, dpi: 150).render(), dpi: 150,
                                                                 template: truth, quarterTurns: 0)
        var light = try photo.grayBuffer()
        for i in light.pixels.indices where light.pixels[i] == 90 { light.pixels[i] = 200 }
        let form = try FormDiscovery().discover(try Image(light), id: "club-draft", title: "Draft", engine: try TesseractEngine(useDictionary: true, alternatives: false))
        #expect(form.corners != nil)
        let match = Self.match(truth, form.template, tolerance: 2 * 72 / 25.4)
        #expect(Double(match.found.count) >= 0.95 * Double(truth.fields.count), "missing \(match.missing), worst \(match.worst)")
        #expect(match.extras.count <= 2, "extra boxes \(match.extras)")
    }

    /// A flat scan fed in 1.5° askew is deskewed before its boxes are looked for.
    @Test func aSkewedFlatScanIsDeskewed() throws {
        let truth = try Self.clubForm()
        let scan = try SheetRenderer(template: truth, dpi: 200).render().rotated(degrees: 1.5)
        let form = try FormDiscovery().discover(scan, id: "club-draft", title: "Draft", engine: try TesseractEngine(useDictionary: true, alternatives: false))
        #expect(abs(form.deskew + 1.5) < 0.2, "deskewed by \(form.deskew)°")
        let match = Self.match(truth, form.template, tolerance: 72 / 25.4)
        #expect(Double(match.found.count) >= 0.95 * Double(truth.fields.count), "missing \(match.missing), worst \(match.worst)")
        #expect(match.extras.count <= 2, "extra boxes \(match.extras)")
    }

    @Test func aBlankPageHasNoBoxesAndADarkOneNoPage() throws {
        let engine = try TesseractEngine(useDictionary: true, alternatives: false)
        let white = try Image.blank(width: 850, height: 1100)
        #expect(throws: FormDiscoveryError.noBoxes) { try FormDiscovery().discover(white, id: "x", title: "x", engine: engine) }
        let dark = try Image(GrayBuffer(width: 850, height: 1100, fill: 20))
        #expect { try FormDiscovery().discover(dark, id: "x", title: "x", engine: engine) } throws: { error in
            if case .noPage = error as? FormDiscoveryError { return true }
            return false
        }
    }

    /// Neighbours sharing a line must not overlap, or the draft is no template: not by a measured pixel, not
    /// by a tenth's rounding (456.5 + 31.9 is 488.40000000000003).
    @Test func cellsSharingALineDoNotOverlap() {
        let cells = BoxFinder.separated([Rect(x: 456.5, y: 282.2, width: 31.9, height: 33.6), Rect(x: 488.4, y: 282.2, width: 31.9, height: 33.6),
                                         Rect(x: 100, y: 100, width: 30.3, height: 20), Rect(x: 130, y: 100, width: 30, height: 20)])
        #expect(!cells[0].intersects(cells[1]) && !cells[2].intersects(cells[3]), "\(cells)")
        #expect(abs(cells[1].x - 488.4) < 1e-9 && abs(cells[3].x - 130.2) < 1e-9, "\(cells)")
    }

    /// A region that leaks round a box (its line broken) overlaps it by more than a line: the box is kept,
    /// the leak dropped.
    @Test func aLeakRoundABoxIsDroppedAndTheBoxKept() {
        let box = Rect(x: 200, y: 200, width: 30, height: 30)
        let cells = BoxFinder.separated([Rect(x: 190, y: 190, width: 80, height: 50), box, Rect(x: 300, y: 200, width: 30, height: 30)])
        #expect(cells == [box, Rect(x: 300, y: 200, width: 30, height: 30)], "\(cells)")
    }

    /// A table's heading cells and row names are boxes with print in them, not room to write: a box holding
    /// a word of two characters with a letter is no field; one holding a lone "1" (a comb's tick read as a
    /// digit) or a word mostly outside it still is.
    @Test func boxesHoldingPrintAreNotFields() {
        let heading = Rect(x: 100, y: 100, width: 60, height: 30), rowName = Rect(x: 40, y: 130, width: 60, height: 30)
        let ticked = Rect(x: 100, y: 130, width: 60, height: 30), under = Rect(x: 160, y: 130, width: 60, height: 30)
        let words = [DraftTemplate.Word(text: "Shots", rect: Rect(x: 112, y: 108, width: 34, height: 12)),
                     DraftTemplate.Word(text: "Q1", rect: Rect(x: 60, y: 138, width: 14, height: 12)),
                     DraftTemplate.Word(text: "1", rect: Rect(x: 128, y: 150, width: 3, height: 8)),
                     DraftTemplate.Word(text: "Saves", rect: Rect(x: 170, y: 112, width: 34, height: 12))]
        let draft = DraftTemplate(id: "t", title: "t", page: PageSize(width: 612, height: 792))
            .make(cells: [heading, rowName, ticked, under], lines: [], words: words)
        #expect(draft.fields.map(\.rect) == [ticked, under])
        #expect(draft.fields.map(\.label) == ["Shots", "Saves"])
    }

    @Test(arguments: [(0.70, PaperSize.a4), (0.78, .letter), (1.30, .letter), (1.41, .a4), (0.5, .own)])
    func thePageSizeIsTheNearestStandardOneOrThePapersOwn(aspect: Double, paper: PaperSize) {
        let (found, size) = PaperSize.nearest(aspect: aspect)
        #expect(found == paper)
        #expect((size.width > size.height) == (aspect > 1))
    }

    /// A photo's proportions between the two sizes are told as the nearer one, and said to be in doubt; a
    /// photo clearly of one size, or a page with its own proportions, is not.
    @Test(arguments: [(0.745, true), (0.775, false), (0.705, false), (0.735, true), (1.36, true), (1.30, false), (0.5, false)])
    func aPhotoBetweenLetterAndA4IsToldAsInDoubt(aspect: Double, inDoubt: Bool) {
        let (paper, _) = PaperSize.nearest(aspect: aspect)
        #expect(paper.photoMayBeTheOther(aspect: aspect) == inDoubt)
    }
}
