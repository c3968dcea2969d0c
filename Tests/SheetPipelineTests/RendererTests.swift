import OCRKit
import SheetModel
import Testing
@testable import SheetPipeline

@Suite struct RendererTests {
    @Test(arguments: [150, 200, 300])
    func fieldsLandAtPointsTimesDpiOver72(dpi: Int) throws {
        let template = try Fixtures.lacrosse()
        let page = try SheetRenderer(template: template, dpi: dpi).render()
        let s = Double(dpi) / 72
        #expect(page.width == Int((612 * s).rounded()) && page.height == Int((792 * s).rounded()))
        let gray = try page.grayBuffer()
        for field in template.fields {
            let r = field.rect
            // The box's left edge is ink at x × dpi/72; just inside and the centre of the box are paper.
            let y = Int((r.y + r.height * 0.4) * s)
            #expect(gray[Int((r.x * s).rounded()), y] < 128, "\(field.id): left edge")
            #expect(gray[Int(r.x * s) + max(4, Int(s * 3)), y] > 128, "\(field.id): inside")
            let top = Int((r.y * s).rounded())
            #expect(gray[Int((r.x + r.width * 0.3) * s), top] < 128, "\(field.id): top edge")
        }
    }

    @Test func markersAndMarkArePrinted() throws {
        let template = try Fixtures.lacrosse()
        let dpi = 150, s = 150.0 / 72
        let gray = try SheetRenderer(template: template, dpi: dpi).render().grayBuffer()
        let frame = SheetFrame(page: template.page)
        for (i, marker) in frame.markers.enumerated() {
            let c = marker.center
            let centre = gray[Int(c.x * s), Int(c.y * s)]
            // The top-left marker is a ring: its centre is paper; the others are solid.
            #expect(i == 0 ? centre > 128 : centre < 128, "marker \(i)")
            #expect(gray[Int((marker.x + 2) * s), Int((marker.y + 2) * s)] < 128, "marker \(i) corner")
        }
        let bits = TemplateMark.bits(id: template.id, version: template.version)
        for (cell, bit) in zip(frame.markCells, bits) {
            #expect((gray[Int(cell.center.x * s), Int(cell.center.y * s)] < 128) == bit)
        }
    }

    @Test func pdfHasTheLetterPageSize() throws {
        let bytes = try SheetRenderer(template: try Fixtures.lacrosse(), dpi: 100).encoded(pdf: true)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("%PDF"))
        #expect(text.contains("/MediaBox [ 0 0 612 792 ]") || text.contains("/MediaBox [0 0 612 792]"), "page must be US Letter in points")
    }
}
