import Foundation
import SheetModel
import Testing

/// `template name` with the built binary: the club form drafted as `template new --from-scan` drafts a blank
/// (boxes `box-1`… row by row, kinds guessed, the date's six cells found one by one, a stray box), named back
/// from a NAMES file into the original template, which then passes `template check` and reads a render of itself.
@Suite struct TemplateNamingCLITests {
    static let form = CLITests.root.appendingPathComponent("TestImages/printed-elsewhere/club-lacrosse.json")

    /// A draft of the club form and the NAMES that turn it back into the form's template.
    struct Draft {
        var draft: [String: Any]
        var names: [String: Any]
        var original: SheetTemplate
        var boxes: Int
    }

    static func draft() throws -> Draft {
        let data = try Data(contentsOf: form)
        let original = try SheetTemplate.decode(data)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])

        // What a draft knows of each box: where it is, a guessed kind and label, and which field it was cut from.
        struct Box { var rect: Rect; var kind: FieldKind; var label: String?; var field: FieldSpec }
        var boxes: [Box] = []
        for field in original.fields {
            let guess: FieldKind = field.kind == .checkbox || field.kind == .text ? field.kind : .count
            if field.kind == .date {
                boxes += (0..<6).map { Box(rect: field.rect.slice($0, of: 6), kind: .count, label: nil, field: field) }
            } else {
                boxes.append(Box(rect: field.rect, kind: guess, label: field.id == "athlete" ? "Ath1ete" : field.label, field: field))
            }
        }
        let stray = FieldSpec(id: "stray", kind: .text, rect: Rect(x: 72, y: 700, width: 120, height: 20))
        boxes.append(Box(rect: stray.rect, kind: .text, label: nil, field: stray))
        boxes.sort { ($0.rect.y, $0.rect.x) < ($1.rect.y, $1.rect.x) }
        let id = { (index: Int) in "box-\(index + 1)" }

        var draft: [String: Any] = ["format": 1, "id": "club-draft", "version": 1, "title": "Draft",
                                    "page": json["page"]!, "printedElsewhere": true, "landmarks": json["landmarks"]!]
        draft["fields"] = boxes.enumerated().map { index, box in
            var f: [String: Any] = ["id": id(index), "kind": box.kind.rawValue,
                                    "rect": [box.rect.x, box.rect.y, box.rect.width, box.rect.height]]
            f["label"] = box.label
            return f
        }

        var fields: [String: Any] = [:]
        var dateCells: [String] = []
        for (index, box) in boxes.enumerated() {
            let field = box.field
            if field.id == "stray" { fields[id(index)] = NSNull(); continue }
            if field.kind == .date { dateCells.append(id(index)); continue }
            var naming: [String: Any] = ["id": field.id]
            if field.kind != box.kind { naming["kind"] = field.kind.rawValue }
            if field.label != box.label { naming["label"] = field.label }
            naming["combs"] = field.combs
            naming["range"] = field.range
            naming["names"] = field.names?.rawValue
            fields[id(index)] = naming
        }
        #expect(dateCells.count == 6)
        // 6 combs, one per cell; the cells' draft had no label to keep.
        fields[dateCells.joined(separator: "+")] = ["id": "date", "kind": "date", "label": original.field("date")?.label as Any]
        let names: [String: Any] = ["id": "club-lacrosse", "title": original.title, "sport": "lacrosse", "fields": fields,
                                    "rules": json["rules"]!, "gameLog": json["gameLog"]!]
        return Draft(draft: draft, names: names, original: original, boxes: boxes.count)
    }

    static func write(_ object: [String: Any], to url: URL) throws {
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted]).write(to: url)
    }

    @Test func aNamedDraftIsTheOriginalTemplateAndReadsItsSheet() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let d = try Self.draft()
        let draft = folder.appendingPathComponent("club-draft.json"), names = folder.appendingPathComponent("names.json")
        try Self.write(d.draft, to: draft)
        try Self.write(d.names, to: names)

        // The draft is a usable template, but `check` says its ids are a draft's.
        let draftCheck = try CLITests.run(["template", "check", draft.path])
        #expect(draftCheck.status == 0, "\(draftCheck.stdout)")
        #expect(draftCheck.stdout.contains("warning: \(d.boxes) fields still have draft ids: box-1, box-2, box-3, box-4, box-5, box-6, box-7, box-8, …; name them in NAMES"), "\(draftCheck.stdout)")

        let list = try CLITests.run(["template", "name", draft.path, "--list"])
        #expect(list.status == 0, "\(list.stderr)")
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.split(separator: " ") == ["box", "kind", "rect", "combs", "label"], "\(list.stdout)")
        #expect(lines.dropFirst().first.map { $0.hasPrefix("box-1 ") && $0.contains(" text ") && $0.contains(" [72, 118, 270, 28] ") && $0.hasSuffix(" Ath1ete") } == true, "\(list.stdout)")
        #expect(lines.count == d.boxes + 2)

        let templates = folder.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        let out = templates.appendingPathComponent("club-lacrosse.json")
        let name = try CLITests.run(["template", "name", draft.path, "--names", names.path, "--out", out.path])
        #expect(name.status == 0, "\(name.stdout)\(name.stderr)")
        #expect(name.stdout == "wrote \(out.path) — club-lacrosse v1, 31 fields, 22 rules, printed elsewhere: 128 landmarks\n")

        let named = try SheetTemplate.decode(Data(contentsOf: out))
        let byID = { (fields: [FieldSpec]) in fields.sorted { $0.id < $1.id } }
        #expect(byID(named.fields) == byID(d.original.fields))
        #expect(named.rules == d.original.rules && named.gameLog == d.original.gameLog && named.landmarks == d.original.landmarks)
        #expect(named.id == "club-lacrosse" && named.title == d.original.title && named.sport == "lacrosse")

        let check = try CLITests.run(["template", "check", out.path])
        #expect(check.status == 0 && !check.stdout.contains("warning"), "\(check.stdout)")
        #expect(check.stdout.hasSuffix("ok — club-lacrosse v1, 31 fields, 22 rules, printed elsewhere: 128 landmarks\n"), "\(check.stdout)")

        let sheet = folder.appendingPathComponent("form.png").path
        let render = try CLITests.run(["template", "render", "club-lacrosse", "--templates", templates.path, "--out", sheet, "--dpi", "150"])
        #expect(render.status == 0, "\(render.stderr)")
        let scan = try CLITests.run(["scan", "--dry-run", "--json", "--templates", templates.path, sheet])
        let object = try #require(JSONSerialization.jsonObject(with: Data(scan.stdout.utf8)) as? [String: Any], "\(scan.stdout)\(scan.stderr)")
        #expect(object["status"] as? String != "failed", "\(object["error"] ?? "")")
        #expect(object["template"] as? String == "club-lacrosse")
        let read = try #require(object["fields"] as? [String: Any])
        #expect(Set(read.keys) == Set(d.original.fields.map(\.id)))
    }

    /// The test draft named with `fields` in a folder of its own: what `template name` said, where it was
    /// to write, the NAMES file, and the draft.
    static func name(_ fields: [String: Any], in folder: URL) throws -> (result: CLITests.Run, out: URL, names: URL, draft: Draft) {
        let d = try Self.draft()
        let draft = folder.appendingPathComponent("draft.json"), names = folder.appendingPathComponent("names.json")
        let out = folder.appendingPathComponent("out.json")
        try Self.write(d.draft, to: draft)
        try Self.write(["fields": fields], to: names)
        let r = try CLITests.run(["template", "name", draft.path, "--names", names.path, "--out", out.path])
        return (r, out, names, d)
    }

    @Test func unknownBoxesAreNamedAndNothingIsWritten() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (r, out, names, d) = try Self.name(["box-1": ["id": "athlete"], "box-99": NSNull(), "box-77": ["id": "x"]], in: folder)
        #expect(r.status == 1)
        #expect(r.stdout == "\(names.path): fields: the draft has no boxes box-77, box-99 (its boxes: box-1 … box-\(d.boxes))\n", "\(r.stdout)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func twoFieldsWithOneIdAreRefusedByTheTemplateCheck() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (r, out, names, d) = try Self.name(["box-1": ["id": "athlete"], "box-3": ["id": "athlete"]], in: folder)
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("\(names.path): fields[2] 'athlete' (box-3): duplicate field id 'athlete'"), "\(r.stdout)")
        #expect(lines.contains { $0.hasPrefix("\(names.path): warning: \(d.boxes - 2) fields still have draft ids: box-2, box-4,") }, "\(r.stdout)")
        #expect(lines.last == "\(out.path): not written")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func listAndNamesAreExclusive() throws {
        let r = try CLITests.run(["template", "name", "draft.json", "--list", "--out", "x.json"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("--list prints the draft's boxes: give it without --names and --out"), "\(r.stderr)")
        let missing = try CLITests.run(["template", "name", "draft.json", "--names", "n.json"])
        #expect(missing.stderr.contains("--names needs --out FILE"), "\(missing.stderr)")
    }
}
