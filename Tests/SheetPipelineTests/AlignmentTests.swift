import Foundation
import OCRKit
import SheetModel
import Testing
@testable import SheetPipeline

/// Render → fill → scan round trips, and the refusals that keep misplaced cells from being read.
@Suite struct AlignmentTests {
    static func scan(_ image: Image, requested: SheetTemplate? = nil, format: ImageFormat = .png) throws -> SheetResult {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/sheet." + (format == .jpeg ? "jpg" : "png")
        try Fixtures.write(try image.encoded(as: format), to: path)
        return try SheetScanner(library: try Fixtures.library(), requested: requested).scan(path)
    }

    @Test(arguments: [0, 1, 2, 3])
    func filledSheetReadsBackInAnyQuarterTurn(quarterTurns: Int) throws {
        let sheet = try Fixtures.filledSheet(try Fixtures.lacrosse(), values: Fixtures.game).rotated(quarterTurns: quarterTurns)
        let result = try Self.scan(sheet)
        #expect(result.status != .failed, "\(result.error ?? "")")
        #expect(result.template == "lacrosse-goalie" && result.templateVersion == 1)
        #expect(result.alignment?.quarterTurns == quarterTurns)
        #expect((result.alignment?.quality ?? 0) > 0.9)
        for (id, expected) in Fixtures.game {
            #expect(result.reading(id)?.value == expected, "\(id)")
        }
    }

    @Test func jpegAtLowerResolutionStillReads() throws {
        let sheet = try Fixtures.filledSheet(try Fixtures.lacrosse(), values: Fixtures.game, dpi: 150)
        let result = try Self.scan(sheet, format: .jpeg)
        let wrong = Fixtures.game.filter { result.reading($0.key)?.value != $0.value }
        #expect(wrong.isEmpty, "wrong: \(wrong.keys.sorted())")
    }

    @Test func blankPageIsRefused() throws {
        let result = try Self.scan(try Image.blank(width: 1275, height: 1650))
        #expect(result.status == .failed)
        #expect(result.error == AlignmentError.noMarkers.message)
        #expect(result.fields.isEmpty)
    }

    @Test func coveredMarkerIsRefused() throws {
        let template = try Fixtures.lacrosse()
        let sheet = try Fixtures.filledSheet(template, values: Fixtures.game, dpi: 150)
        let s = 150.0 / 72, m = SheetFrame(page: template.page).markers[2]
        try sheet.fill(PixelRect(x: Int((m.x - 4) * s), y: Int((m.y - 4) * s), width: Int((m.width + 8) * s), height: Int((m.height + 8) * s)), color: .white)
        let result = try Self.scan(sheet)
        #expect(result.status == .failed)
        #expect(result.error == AlignmentError.markersMissing(found: 3).message)
    }

    @Test func anotherTemplatesSheetIsRefused() throws {
        var other = try Fixtures.lacrosse()
        other.id = "hockey-goalie"
        let sheet = try SheetRenderer(template: other, dpi: 150).render()
        let result = try Self.scan(sheet, requested: try Fixtures.lacrosse())
        #expect(result.status == .failed)
        #expect(result.error == AlignmentError.wrongTemplate(expected: "lacrosse-goalie", found: "unknown").message)
    }

    @Test func unknownMarkWithoutTemplateIsRefused() throws {
        var other = try Fixtures.lacrosse()
        other.id = "mystery-sheet"
        let result = try Self.scan(try SheetRenderer(template: other, dpi: 150).render())
        #expect(result.status == .failed)
        #expect(result.error == AlignmentError.unknownMark(version: 1).message)
    }

    @Test func shiftedLayoutFailsTheBoxLineCheck() throws {
        // Same id and marks, but every field moved 9 points: the fit cannot find the boxes.
        var moved = try Fixtures.lacrosse()
        let sheet = try SheetRenderer(template: moved, dpi: 150).render()
        for i in moved.fields.indices { moved.fields[i].rect.x += 9; moved.fields[i].rect.y += 9 }
        let result = try Self.scan(sheet, requested: moved)
        #expect(result.status == .failed)
        #expect(result.error?.contains("could not be aligned") == true, "\(result.error ?? "")")
    }

    @Test func homographyMapsItsFourPoints() throws {
        let from = [Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 10, y: 20), Point(x: 0, y: 20)]
        let to = [Point(x: 5, y: 7), Point(x: 30, y: 4), Point(x: 33, y: 60), Point(x: 2, y: 55)]
        let h = try #require(Homography(from: from, to: to))
        for (a, b) in zip(from, to) {
            let p = h.apply(a)
            #expect(abs(p.x - b.x) < 1e-9 && abs(p.y - b.y) < 1e-9)
        }
        #expect(Homography(from: [Point(x: 0, y: 0), Point(x: 1, y: 1), Point(x: 2, y: 2), Point(x: 3, y: 3)], to: to) == nil)
    }
}
