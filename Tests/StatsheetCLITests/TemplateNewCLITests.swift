import Foundation
import OCRKit
import Testing

/// `template new` with the built binary: a draft from the blank form's render, checked by `template check`,
/// and a scan of the same render aligned to it; a page without boxes refused with a clear error.
@Suite struct TemplateNewCLITests {
    @Test func aDraftFromTheRenderPassesCheckAndAlignsTheRender() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let blank = folder.appendingPathComponent("blank.png").path
        let render = try CLITests.run(["template", "render", "club-lacrosse", "--templates", PrintedElsewhereCLITests.form.deletingLastPathComponent().path,
                                       "--out", blank, "--dpi", "150"])
        #expect(render.status == 0, "\(render.stderr)")
        let templates = folder.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        let draft = templates.appendingPathComponent("club-draft.json").path

        let new = try CLITests.run(["template", "new", "--from-scan", blank, "--id", "club-draft", "--out", draft])
        #expect(new.status == 0, "\(new.stderr)")
        #expect(new.stdout.hasPrefix("wrote \(draft) ("), "\(new.stdout)")
        #expect(new.stdout.contains(" fields, ") && new.stdout.contains(" landmarks, Letter) and "), "\(new.stdout)")
        let preview = templates.appendingPathComponent("club-draft.preview.png").path
        #expect(new.stdout.hasSuffix("and \(preview)\n"), "\(new.stdout)")
        let png = try #require(FileManager.default.contents(atPath: preview))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))

        let check = try CLITests.run(["template", "check", draft])
        #expect(check.status == 0, "\(check.stdout)")
        #expect(check.stdout.contains("ok — club-draft v1, "), "\(check.stdout)")
        // The preview PNG beside the draft is not a template; the library reads only *.json.
        let scan = try CLITests.run(["scan", "--dry-run", "--json", "--templates", templates.path, blank])
        let object = try #require(JSONSerialization.jsonObject(with: Data(scan.stdout.utf8)) as? [String: Any], "\(scan.stdout)\(scan.stderr)")
        #expect(object["status"] as? String != "failed", "\(object["error"] ?? "")")
        #expect(object["template"] as? String == "club-draft")
        let alignment = try #require(object["alignment"] as? [String: Any])
        #expect(alignment["mark_read"] as? Bool == false)

        // A person who knows the paper names it: the same Letter render drafted as A4 is A4's size, its
        // boxes where A4's proportions put them, written as `template name` writes a template.
        let a4 = folder.appendingPathComponent("a4.json").path
        let named = try CLITests.run(["template", "new", "--from-scan", blank, "--id", "club-a4", "--out", a4, "--paper", "a4"])
        #expect(named.status == 0 && named.stdout.contains(" landmarks, A4) and "), "\(named.stdout)\(named.stderr)")
        let page = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: a4))) as? [String: Any])?["page"] as? [String: Any])
        #expect(page["width"] as? Double == 595 && page["height"] as? Double == 842, "\(page)")
        #expect(try String(contentsOfFile: a4, encoding: .utf8).contains("\n    {\"id\": \"box-1\", "))
    }

    @Test func aPageWithoutBoxesIsRefusedWithAClearError() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let white = folder.appendingPathComponent("white.png").path
        try Data(try Image.blank(width: 850, height: 1100).encoded(as: .png)).write(to: URL(fileURLWithPath: white))
        let out = folder.appendingPathComponent("x.json").path
        let r = try CLITests.run(["template", "new", "--from-scan", white, "--id", "x", "--out", out])
        #expect(r.status != 0)
        #expect(r.stderr.contains("no printed boxes found on the page"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let bad = try CLITests.run(["template", "new", "--from-scan", white, "--id", "Bad Id", "--out", out])
        #expect(bad.status != 0 && bad.stderr.contains("--id must be lowercase"), "\(bad.stderr)")

        // Nothing bright enough to be paper.
        let dark = folder.appendingPathComponent("dark.png").path
        try Data(try Image(GrayBuffer(width: 850, height: 1100, fill: 15)).encoded(as: .png)).write(to: URL(fileURLWithPath: dark))
        let none = try CLITests.run(["template", "new", "--from-scan", dark, "--id", "x", "--out", out])
        #expect(none.status != 0 && none.stderr.contains("no page found in the image"), "\(none.stderr)")
    }

    @Test func helpNamesTheOptions() throws {
        let r = try CLITests.run(["template", "--help"])
        #expect(r.stdout.contains("new") && r.stdout.contains("Draft a template from a photo or scan"), "\(r.stdout)")
        let new = try CLITests.run(["template", "new", "--help"])
        for option in ["--from-scan <file>", "--id <id>", "--out <file>", "--paper <size>", "preview"] {
            #expect(new.stdout.contains(option), "\(option) missing from template new help")
        }
    }
}
