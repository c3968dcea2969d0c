import Foundation
import Testing

/// A form printed elsewhere, end to end with the built binary: its template checked, its blank drawn without
/// markers, and the drawing scanned with and without `--template`; our own sheet beside it still known by its mark.
@Suite struct PrintedElsewhereCLITests {
    static let form = CLITests.root.appendingPathComponent("TestImages/printed-elsewhere/club-lacrosse.json")

    @Test func aFormWithoutMarkersIsScannedWithAndWithoutItsTemplateNamed() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let templates = folder.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.form, to: templates.appendingPathComponent("club-lacrosse.json"))

        let check = try CLITests.run(["template", "check", Self.form.path])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.hasSuffix("ok — club-lacrosse v1, 31 fields, 22 rules, printed elsewhere: 128 landmarks\n"), "\(check.stdout)")
        let sheet = folder.appendingPathComponent("form.png").path
        let render = try CLITests.run(["template", "render", "club-lacrosse", "--templates", templates.path, "--out", sheet, "--dpi", "150"])
        #expect(render.status == 0, "\(render.stderr)")
        let ours = folder.appendingPathComponent("ours.png").path
        #expect(try CLITests.run(["template", "render", "lacrosse-goalie", "--out", ours, "--dpi", "150"]).status == 0)

        for named in [[], ["--template", "club-lacrosse"]] {
            let r = try CLITests.run(["scan", "--dry-run", "--json", "--templates", templates.path, sheet] + named)
            let object = try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)\(r.stderr)")
            #expect(object["status"] as? String != "failed", "\(named): \(object["error"] ?? "")")
            #expect(object["template"] as? String == "club-lacrosse", "\(named)")
            let alignment = try #require(object["alignment"] as? [String: Any])
            #expect(alignment["mark_read"] as? Bool == false)
        }
        // Our own sheet, with the form in the library: still identified by its mark.
        let r = try CLITests.run(["scan", "--dry-run", "--json", "--templates", templates.path, ours])
        let object = try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)\(r.stderr)")
        #expect(object["template"] as? String == "lacrosse-goalie")
        #expect((object["alignment"] as? [String: Any])?["mark_read"] as? Bool == true)
    }
}
