import Foundation
import SheetModel
import Testing
@testable import SheetPipeline

/// The templates in Templates/ side by side: sheets of several sports scanned together must each be
/// told apart by their printed mark, without `--template`.
@Suite struct TemplateSetTests {
    /// Every template id in Templates/; empty if the folder does not load, which `marksAreDistinct` fails on.
    static let ids = (try? Fixtures.library().templates.map(\.id)) ?? []

    @Test func marksAreDistinct() throws {
        let library = try Fixtures.library()
        #expect(library.templates.count >= 3, "lacrosse, hockey and soccer at least")
        let hashes = library.templates.map { TemplateMark.idHash($0.id) }
        #expect(Set(hashes).count == hashes.count, "two templates share a mark hash: \(library.templates.map(\.id))")
    }

    /// Each template's own blank, rendered and scanned with every template known, is read as that
    /// template, aligned on its box lines, with a reading for every field.
    @Test(arguments: ids)
    func blankSheetIsIdentifiedAsItsTemplate(id: String) throws {
        let template = try #require(try Fixtures.library().template(id: id))
        let result = try AlignmentTests.scan(try SheetRenderer(template: template, dpi: 150).render())
        #expect(result.template == id && result.templateVersion == template.version, "\(result.error ?? "")")
        #expect((result.alignment?.quality ?? 0) > 0.9)
        #expect(result.fields.count == template.fields.count)
    }
}
