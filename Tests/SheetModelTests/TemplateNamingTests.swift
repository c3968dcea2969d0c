import Foundation
import Testing
@testable import SheetModel

/// Naming a draft's boxes: what a NAMES entry keeps, replaces, removes, merges and refuses; and the written
/// template reading back as itself.
@Suite struct TemplateNamingTests {
    /// A draft of four boxes on a form printed elsewhere, with a label guessed for the first.
    static let draft: SheetTemplate = {
        var t = SheetTemplate(id: "draft", version: 1, title: "Draft", page: PageSize(width: 612, height: 792), fields: [
            FieldSpec(id: "box-1", kind: .text, rect: Rect(x: 72, y: 100, width: 200, height: 28), label: "Athl3te"),
            FieldSpec(id: "box-2", kind: .count, rect: Rect(x: 300, y: 100, width: 20, height: 28), combs: 1),
            FieldSpec(id: "box-3", kind: .count, rect: Rect(x: 320, y: 100, width: 20, height: 28), combs: 1),
            FieldSpec(id: "box-10", kind: .count, rect: Rect(x: 72, y: 200, width: 16, height: 16), combs: 2),
        ])
        t.printedElsewhere = true
        t.landmarks = [Landmark(from: [60, 90], to: [560, 90]), Landmark(from: [60, 300], to: [560, 300]),
                       Landmark(from: [60, 90], to: [60, 300]), Landmark(from: [560, 90], to: [560, 300])]
        return t
    }()

    static func names(_ json: String) throws -> FieldNames { try FieldNames.decode(Data(json.utf8)) }

    @Test func namedBoxesKeepTheirRectsAndTheRestKeepTheirGuesses() throws {
        let names = try Self.names("""
            {"id": "club-card", "sport": "lacrosse",
             "fields": {"box-1": {"id": "athlete", "names": "athlete", "label": null},
                        "box-2+box-3": {"id": "q1.shots", "range": [0, 49]},
                        "box-10": {"id": "context.hs", "kind": "checkbox", "label": "High school"}}}
            """)
        let named = try Self.draft.named(by: names)
        #expect(named.boxes == ["box-1", "box-2+box-3", "box-10"])
        let t = named.template
        #expect(t.id == "club-card" && t.title == "Draft" && t.sport == "lacrosse")
        #expect(t.fields == [
            FieldSpec(id: "athlete", kind: .text, rect: Rect(x: 72, y: 100, width: 200, height: 28), names: .athlete),
            FieldSpec(id: "q1.shots", kind: .count, rect: Rect(x: 300, y: 100, width: 40, height: 28), combs: 2, range: [0, 49]),
            // A checkbox has no combs: the draft's guess goes with its kind.
            FieldSpec(id: "context.hs", kind: .checkbox, rect: Rect(x: 72, y: 200, width: 16, height: 16), label: "High school"),
        ])
        #expect(named.problems().isEmpty, "\(named.problems())")
    }

    @Test func nullDropsABoxAndUnmentionedBoxesKeepTheirDraftIds() throws {
        let named = try Self.draft.named(by: try Self.names(#"{"fields": {"box-1": null, "box-2": {"id": "a"}}}"#))
        #expect(named.template.fields.map(\.id) == ["a", "box-3", "box-10"])
        #expect(named.template.draftFieldIDs == ["box-3", "box-10"])
        #expect(named.template.draftIDGuidance == "2 fields still have draft ids: box-3, box-10; name them in NAMES (statsheet template name) or drop them with null")
    }

    @Test func unknownAndTwiceNamedBoxesAreRefused() throws {
        #expect(throws: TemplateError(["fields: the draft has no boxes box-4, box-11 (its boxes: box-1 … box-10)"])) {
            try Self.draft.named(by: try Self.names(#"{"fields": {"box-11": null, "box-4": {"id": "a"}, "box-1": {"id": "b"}}}"#))
        }
        #expect(throws: TemplateError(["fields: box-2 named more than once"])) {
            try Self.draft.named(by: try Self.names(#"{"fields": {"box-2": null, "box-2+box-3": {"id": "a"}}}"#))
        }
        #expect(throws: TemplateError(["fields.box-1.rect: a box keeps the rect the draft found; NAMES only names it (known keys: id, kind, combs, label, range, names)"])) {
            try Self.names(#"{"fields": {"box-1": {"id": "a", "rect": [0, 0, 10, 10]}}}"#)
        }
        #expect(throws: TemplateError(["fields.box-1.kind: not one of count, digits, text, date, checkbox"])) {
            try Self.names(#"{"fields": {"box-1": {"id": "a", "kind": "number"}}}"#)
        }
    }

    @Test func aTemplateProblemNamesTheBoxItCameFrom() throws {
        let named = try Self.draft.named(by: try Self.names(#"{"fields": {"box-2": {"id": "a"}, "box-3": {"id": "a"}}}"#))
        #expect(named.problems() == ["fields[2] 'a' (box-3): duplicate field id 'a'"])
    }

    @Test func theWrittenTemplateReadsBackAsItself() throws {
        for file in ["Templates/lacrosse-goalie.json", "Templates/basketball-box.json", "TestImages/printed-elsewhere/club-lacrosse.json"] {
            var template = try SheetTemplate.decode(Data(contentsOf: repositoryRoot.appendingPathComponent(file)))
            template.sport = "lacrosse"
            let text = try template.formattedJSON()
            #expect(try SheetTemplate.decode(text) == template, "\(file)")
            let lines = String(decoding: text, as: UTF8.self).split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix(#"    {"id": "athlete", "kind": "text", "rect": [72,"#) } || file.contains("basketball"), "\(file)")
        }
    }
}
