import Foundation
import Testing
@testable import SheetModel

/// The repository's root, found from this file so tests run from any working directory.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite struct TemplateDecodingTests {
    static let lacrosseData = try! Data(contentsOf: repositoryRoot.appendingPathComponent("Templates/lacrosse-goalie.json"))

    @Test func bundledLacrosseTemplateDecodesWithTheAgreedFieldIds() throws {
        let template = try SheetTemplate.decode(Self.lacrosseData)
        #expect(template.id == "lacrosse-goalie")
        #expect(template.page == PageSize(width: 612, height: 792))
        for id in ["athlete", "opponent", "date", "context.hs", "context.club", "conference.conf", "conference.nonconf"] {
            #expect(template.field(id) != nil, "missing \(id)")
        }
        for row in ["q1", "q2", "q3", "q4", "ot", "total"] {
            for column in ["shots", "saves", "goals", "clears"] {
                let field = try #require(template.field("\(row).\(column)"))
                #expect(field.kind == .count)
                #expect(field.combs == 2)
                // A period's count is at most 49 (no goalie faces 50 shots in a quarter); a game's total, 99.
                #expect(field.allowedRange == (row == "total" ? 0...99 : 0...49))
            }
        }
        #expect(template.field("date")?.combs == 6)
        #expect(template.problems().isEmpty)
    }

    /// A small valid template as a JSON object, for tests to break one piece at a time.
    static func json(_ edit: (inout [String: Any]) -> Void = { _ in }) throws -> Data {
        var object: [String: Any] = [
            "format": 1, "id": "tiny", "version": 1, "title": "Tiny", "page": ["width": 612, "height": 792],
            "fields": [
                ["id": "a", "kind": "count", "rect": [100, 200, 60, 30], "combs": 2],
                ["id": "b", "kind": "checkbox", "rect": [200, 200, 16, 16]],
            ],
        ]
        edit(&object)
        return try JSONSerialization.data(withJSONObject: object)
    }

    static func problems(_ edit: (inout [String: Any]) -> Void) throws -> [String] {
        let data = try json(edit)
        do {
            _ = try SheetTemplate.decode(data)
            return []
        } catch {
            return error.problems
        }
    }

    @Test func validTinyTemplateDecodes() throws {
        #expect(try SheetTemplate.decode(try Self.json()).fields.count == 2)
    }

    @Test func missingKeyIsNamedWithItsPath() throws {
        let problems = try Self.problems { o in
            o["fields"] = [["id": "a", "kind": "count"]]
        }
        #expect(problems == ["fields[0].rect: required key is missing"])
    }

    @Test func unknownKindListsTheKinds() throws {
        let problems = try Self.problems { o in
            o["fields"] = [["id": "a", "kind": "cout", "rect": [100, 200, 60, 30]]]
        }
        #expect(problems == ["fields[0].kind: not one of count, digits, text, date, checkbox"])
    }

    @Test func wrongTypeIsNamed() throws {
        let problems = try Self.problems { o in o["version"] = "one" }
        #expect(problems == ["version: expected a number"])
    }

    @Test func rectMustHaveFourNumbers() throws {
        let problems = try Self.problems { o in
            o["fields"] = [["id": "a", "kind": "count", "rect": [100, 200, 60, 30, 5]]]
        }
        #expect(problems.count == 1)
        #expect(problems[0].hasPrefix("fields[0].rect"))
    }

    @Test(arguments: [
        ("duplicate", "fields[1] 'a': duplicate field id 'a'"),
        ("offPage", "fields[0] 'a': rect [600, 200, 60, 30] extends past the page (612×792 points)"),
        ("overlap", "fields 'a' and 'b' overlap"),
        ("dateCombs", "fields[0] 'a': a date has combs 6 (MM DD YY)"),
        ("format", "format 2 is not supported (this statsheet reads format 1)"),
        ("onMarker", "fields[0] 'a': rect [20, 20, 60, 30] covers an alignment marker or the template mark"),
        ("badRange", "fields[0] 'a': range [9, 1] must be [min, max] with min ≤ max"),
    ])
    func semanticProblemsAreSpecific(_ case: String, _ expected: String) throws {
        let problems = try Self.problems { o in
            var fields = o["fields"] as! [[String: Any]]
            switch `case` {
            case "duplicate": fields[1]["id"] = "a"
            case "offPage": fields[0]["rect"] = [600, 200, 60, 30]
            case "overlap": fields[1]["rect"] = [150, 210, 16, 16]
            case "dateCombs": fields[0]["kind"] = "date"
            case "format": o["format"] = 2
            case "onMarker": fields[0]["rect"] = [20, 20, 60, 30]
            case "badRange": fields[0]["range"] = [9, 1]
            default: break
            }
            o["fields"] = fields
        }
        #expect(problems.contains(expected), "got \(problems)")
    }

    @Test func notJSONIsSaidPlainly() throws {
        #expect(throws: TemplateError(["not valid JSON"])) { try SheetTemplate.decode(Data("{ nope".utf8)) }
    }

    @Test func unknownKeysAreIgnoredForForwardCompatibility() throws {
        let data = try Self.json { o in o["scoreboard"] = ["home": "athlete"]; o["printing"] = ["duplex": true] }
        #expect(try SheetTemplate.decode(data).id == "tiny")
    }
}

/// The blank paper beside a count field, where a struck-out number is written again.
@Suite struct SpaceBesideTests {
    func template(_ name: String) throws -> SheetTemplate {
        try SheetTemplate.decode(try Data(contentsOf: repositoryRoot.appendingPathComponent("Templates/\(name).json")))
    }

    @Test func aGoalieSheetsCountsHaveTheGapToTheNextColumnOrTheMarginBesideThem() throws {
        let lacrosse = try template("lacrosse-goalie")
        let shots = try #require(lacrosse.field("q1.shots")), saves = try #require(lacrosse.field("q1.saves"))
        let space = try #require(lacrosse.spaceBeside(shots))
        #expect(space.x == shots.rect.maxX)
        #expect(space.maxX == saves.rect.x)
        #expect(space.y < shots.rect.y && space.maxY == shots.rect.maxY)
        // The last column: open paper up to the widest a correction needs.
        let clears = try #require(lacrosse.field("total.clears"))
        #expect(lacrosse.spaceBeside(clears)?.width == 40)
        // Only counts: a date's or a checkbox's surroundings are not a correction's place.
        #expect(lacrosse.spaceBeside(try #require(lacrosse.field("date"))) == nil)
        #expect(lacrosse.spaceBeside(try #require(lacrosse.field("context.hs"))) == nil)
    }

    @Test func noSpaceWhereColumnsSitCloseOrALabelIsPrinted() throws {
        // A box score's columns are 6–18 points apart: no number fits between them.
        let box = try template("basketball-box")
        #expect(box.spaceBeside(try #require(box.field("p01.fg2m"))) == nil)
        #expect(box.spaceBeside(try #require(box.field("p01.pts"))) == nil)
        // A label printed right of a count takes the space.
        var lacrosse = try template("lacrosse-goalie")
        let clears = try #require(lacrosse.field("total.clears"))
        #expect(lacrosse.spaceBeside(clears) != nil)
        lacrosse.labels = (lacrosse.labels ?? []) + [PrintedLabel(text: "min", at: [clears.rect.maxX + 4, clears.rect.maxY - 8], size: 10)]
        #expect(lacrosse.spaceBeside(clears) == nil)
    }
}

extension TemplateDecodingTests {
    /// The tiny template as paper printed elsewhere, with a frame of four landmarks unless told otherwise.
    static func elsewhere(_ landmarks: [[String: Any]]? = [
        ["from": [60, 150], "to": [300, 150]], ["from": [60, 300], "to": [300, 300]],
        ["from": [60, 150], "to": [60, 300]], ["from": [300, 150], "to": [300, 300]],
    ], edit: (inout [String: Any]) -> Void = { _ in }) throws -> [String] {
        try problems { o in
            o["printedElsewhere"] = true
            if let landmarks { o["landmarks"] = landmarks }
            edit(&o)
        }
    }

    @Test func paperPrintedElsewhereDecodesWithItsLandmarks() throws {
        let template = try SheetTemplate.decode(try Self.json { o in
            o["printedElsewhere"] = true
            o["landmarks"] = [["from": [60, 150], "to": [300, 150]], ["from": [60, 300], "to": [300, 300]],
                              ["from": [60, 150], "to": [60, 300]], ["from": [300, 150], "to": [300, 300]]]
        })
        #expect(!template.hasMarkers)
        #expect(template.landmarks?.count == 4)
    }

    /// Without markers nothing is reserved: a field may lie where a marker would be printed.
    @Test func theMarkerZoneRuleAppliesOnlyToSheetsWithMarkers() throws {
        let onMarker: (inout [String: Any]) -> Void = { o in o["fields"] = [["id": "a", "kind": "count", "rect": [20, 20, 60, 30]]] }
        #expect(try Self.problems(onMarker) == ["fields[0] 'a': rect [20, 20, 60, 30] covers an alignment marker or the template mark"])
        #expect(try Self.elsewhere(edit: onMarker) == [])
    }

    /// Each case: its landmarks as JSON (empty: none), and the one problem it must be refused with.
    @Test(arguments: [
        ("", "landmarks: a template of paper printed elsewhere needs its printed lines as landmarks, to be aligned without markers"),
        ("[{\"from\": [60, 150], \"to\": [300, 160]}]", "landmarks[0]: a landmark runs horizontally or vertically (same y or same x at both ends)"),
        ("[{\"from\": [60, 150], \"to\": [700, 150]}]", "landmarks[0]: [60, 150]–[700, 150] extends past the page (612×792 points)"),
        ("[{\"from\": [60, 150], \"to\": [65, 150]}]", "landmarks[0]: shorter than 12 points"),
        ("[{\"from\": [60], \"to\": [65, 150]}]", "landmarks[0]: from and to are points [x, y]"),
        ("[{\"from\": [60, 150], \"to\": [300, 150]}, {\"from\": [60, 300], \"to\": [300, 300]}]",
         "landmarks: at least two horizontal and two vertical lines, each pair 36 points or more apart, are needed to align the page"),
        ("[{\"from\": [60, 150], \"to\": [300, 150]}, {\"from\": [60, 300], \"to\": [300, 300]}, {\"from\": [60, 150], \"to\": [60, 300]}, {\"from\": [80, 150], \"to\": [80, 300]}]",
         "landmarks: at least two horizontal and two vertical lines, each pair 36 points or more apart, are needed to align the page"),
    ])
    func landmarksThatCannotAlignAPageAreRefused(landmarks: String, problem: String) throws {
        let parsed = landmarks.isEmpty ? nil : try JSONSerialization.jsonObject(with: Data(landmarks.utf8)) as? [[String: Any]]
        #expect(try Self.elsewhere(parsed) == [problem])
    }

    /// Landmarks on a sheet statsheet prints are refused rather than ignored: its markers align it, and a
    /// key that silently does nothing would mislead whoever wrote it.
    @Test func landmarksOnASheetWithMarkersAreRefused() throws {
        let problems = try Self.problems { o in o["landmarks"] = [["from": [60, 150], "to": [300, 150]]] }
        #expect(problems == ["landmarks: only a template of paper printed elsewhere (\"printedElsewhere\": true) has landmarks; a sheet statsheet prints is aligned by its markers"])
    }
}

/// A field id's row and column are taken apart in one place, at the first dot.
@Suite struct FieldIDTests {
    @Test func aDottedIdIsItsRowAndColumn() {
        #expect(FieldID("q2.saves").row == "q2" && FieldID("q2.saves").column == "saves")
        #expect(FieldID(row: "p01", column: "pts") == FieldID("p01.pts"))
        #expect(FieldID("athlete").row == nil && FieldID("athlete").column == nil)
        // Only the first dot splits: a column may itself be dotted.
        #expect(FieldID("players.stats.pts").row == "players" && FieldID("players.stats.pts").column == "stats.pts")
    }
}
