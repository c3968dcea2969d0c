import Foundation
import Testing

/// A club's own goalie tally card (`TestImages/club-form`, drawn by `Tools/make_forms.py`: a ruled table with
/// shared cell walls, no markers), filled by hand and photographed by phone (`Tools/make_test_sheets.py`,
/// MNIST's test writers): every photo is aligned to the form by its printed lines and read as well as our
/// own sheets, and no misread number goes unflagged.
@Suite struct ClubFormCLITests {
    static let folder = CLITests.root.appendingPathComponent("TestImages/club-form")
    static let photos = folder.appendingPathComponent("handwritten-phone")

    /// A JSON value as text to compare: a count, a date, or "empty" for null or nothing.
    static func text(_ value: Any?) -> String {
        switch value {
        case let n as Int: String(n)
        case let s as String: s
        default: "empty"
        }
    }

    @Test func theClubFormsTemplateIsValid() throws {
        let check = try CLITests.run(["template", "check", Self.folder.appendingPathComponent("club-tally.json").path])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("ok — club-tally v1"), "\(check.stdout)")
    }

    @Test func handFilledPhotosAreAlignedAndReadWithNothingWrongUnflagged() throws {
        try Self.readPhotos(templates: Self.folder)
    }

    /// The form as a club makes its template: `template new` drafts it from the phone photo of the blank,
    /// `template name` names the draft's boxes with `blank/names.json` (written for this photo's draft by
    /// `Tools/names_from_truth.py`), and the hand-filled photos read through it as well as through the form's
    /// drawn truth.
    @Test func aTemplateMadeFromAPhotoOfTheBlankReadsTheFilledSheets() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("club-form-\(UUID().uuidString)")
        let templates = work.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let draft = work.appendingPathComponent("draft.json").path
        let new = try CLITests.run(["template", "new", "--from-scan", Self.folder.appendingPathComponent("blank/form-1-photo.jpg").path,
                                    "--id", "club-tally", "--out", draft])
        #expect(new.status == 0, "\(new.stdout)\(new.stderr)")
        let named = templates.appendingPathComponent("club-tally.json").path
        let name = try CLITests.run(["template", "name", draft, "--names", Self.folder.appendingPathComponent("blank/names.json").path,
                                     "--out", named])
        #expect(name.status == 0, "\(name.stdout)\(name.stderr)")
        #expect(name.stdout.contains("31 fields, 22 rules"), "\(name.stdout)")
        try Self.readPhotos(templates: templates)
    }

    /// Scans the hand-filled photos through the templates in `templates` and holds them to the floor: every
    /// photo aligned to club-tally by its lines, 97% of numbers right, none wrong and unflagged.
    static func readPhotos(templates: URL) throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.photos.path)
            .filter { $0.hasSuffix(".jpg") }.sorted()
        #expect(files.count >= 6, "\(files)")
        let r = try CLITests.run(["scan", "--dry-run", "--json", "--writing", "hand", "--today", "2026-11-23",
                                  "--templates", templates.path] + files.map { Self.photos.appendingPathComponent($0).path })
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == files.count, "\(r.stderr)")

        let template = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: templates.appendingPathComponent("club-tally.json"))) as? [String: Any])
        let numeric = Set((template["fields"] as? [[String: Any]] ?? []).compactMap { field -> String? in
            ["count", "date"].contains(field["kind"] as? String ?? "") ? field["id"] as? String : nil
        })
        #expect(numeric.count == 25)
        var numbers = 0, right = 0
        var silent: [String] = []
        for line in lines {
            let sheet = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            let file = try #require(sheet["file"] as? String)
            let name = URL(fileURLWithPath: file).lastPathComponent
            let error = sheet["error"] as? String ?? ""
            #expect(sheet["status"] as? String != "failed", "\(name): \(error)")
            #expect(sheet["template"] as? String == "club-tally", "\(name)")
            let alignment = sheet["alignment"] as? [String: Any] ?? [:]
            #expect(alignment["mark_read"] as? Bool == false, "\(name)")
            let truthURL = URL(fileURLWithPath: file).deletingPathExtension().appendingPathExtension("truth.json")
            let truth = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: truthURL)) as? [String: Any])
            let expected = try #require(truth["fields"] as? [String: Any])
            let read = sheet["fields"] as? [String: [String: Any]] ?? [:]
            // The numbers: every count (an empty one is null) and the date.
            for id in numeric.sorted() {
                numbers += 1
                let want = Self.text(expected[id])
                let got = Self.text(read[id]?["value"])
                if want == got {
                    right += 1
                } else if read[id]?["flagged"] as? Bool != true {
                    silent.append("\(name) \(id): \(want) read \(got)")
                }
            }
        }
        #expect(numbers >= 6 * 25)
        #expect(Double(right) >= 0.97 * Double(numbers), "\(right) of \(numbers) numbers right")
        #expect(silent.isEmpty, "wrong and unflagged: \(silent)")
    }
}
