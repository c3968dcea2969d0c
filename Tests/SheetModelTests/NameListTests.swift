import Foundation
import Testing
@testable import SheetModel

/// A club's names file (`statsheet names import`): read whole, or refused with every problem by line.
@Suite struct NameListTests {
    func parse(_ text: String) throws(NameListError) -> [KnownName] { try NameList.parse(Data(text.utf8)) }

    func problems(_ data: Data) -> [NameListProblem] {
        do {
            let names = try NameList.parse(data)
            Issue.record("expected problems, read \(names)")
            return []
        } catch {
            return error.problems
        }
    }

    func problems(_ text: String) -> [NameListProblem] { problems(Data(text.utf8)) }

    @Test func aGoodFileGivesEveryNameInOrderWithQuotesAccentsAndApostrophes() throws {
        let names = try parse("""
            kind,name,number,team
            athlete,Zoë Fernández,1,Granite Bay
            opponent,"St. Mary's",,
            opponent,O'Neill Prep,,
            player,"Lee, ""Cam"" Jr.",00,Granite Bay
            team,Granite Bay,,

            opponent,  Lincoln High  ,,
            """)
        #expect(names == [
            KnownName(kind: .athlete, name: "Zoë Fernández", number: "1", team: "Granite Bay"),
            KnownName(kind: .opponent, name: "St. Mary's"),
            KnownName(kind: .opponent, name: "O'Neill Prep"),
            KnownName(kind: .player, name: "Lee, \"Cam\" Jr.", number: "00", team: "Granite Bay"),
            KnownName(kind: .team, name: "Granite Bay"),
            KnownName(kind: .opponent, name: "Lincoln High"),
        ])
    }

    @Test func columnsMayComeInAnyOrderAndTheOptionalOnesMayBeLeftOut() throws {
        #expect(try parse("Name,Kind\nSt. Mary's,opponent\n") == [KnownName(kind: .opponent, name: "St. Mary's")])
        #expect(try parse("team,name,kind\r\nGranite Bay,Zoë,athlete\r\n") == [KnownName(kind: .athlete, name: "Zoë", team: "Granite Bay")])
    }

    @Test func aByteOrderMarkAndWindowsLineBreaksAreAccepted() throws {
        let data = Data([0xEF, 0xBB, 0xBF]) + Data("kind,name\r\nopponent,\"O'Neill\r\nPrep\"\r\nathlete,Zoë\r\n".utf8)
        // A line break inside quotes is part of the field: a name cannot hold one, so that row is refused, at the line it starts on.
        #expect(problems(data) == [NameListProblem(line: 2, issue: .controlCharacter(column: "name"))])
        let clean = Data([0xEF, 0xBB, 0xBF]) + Data("kind,name\r\nopponent,O'Neill Prep\r\nathlete,Zoë\r\n".utf8)
        #expect(try NameList.parse(clean).map(\.name) == ["O'Neill Prep", "Zoë"])
    }

    @Test func aQuotedFieldSpanningLinesCountsItsLinesSoLaterProblemsAreAtTheirOwnLine() {
        #expect(problems("kind,name\nopponent,\"two\nlines\"\ncoach,Pat\n") == [
            NameListProblem(line: 2, issue: .controlCharacter(column: "name")),
            NameListProblem(line: 4, issue: .unknownKind("coach")),
        ])
    }

    @Test(arguments: [
        // Wrong columns.
        ("kind,name\nathlete,Zoë,7\n", [NameListProblem(line: 2, issue: .fieldCount(found: 3, expected: 2))]),
        ("kind,name,coach\nathlete,Zoë,Pat\n", [NameListProblem(line: 1, issue: .unknownColumn("coach"))]),
        ("kind,number\nathlete,7\n", [NameListProblem(line: 1, issue: .missingColumn("name"))]),
        ("name,name,kind\nZoë,Zoë,athlete\n", [NameListProblem(line: 1, issue: .repeatedColumn("name"))]),
        ("athlete,Zoë Fernández\n", [NameListProblem(line: 1, issue: .unknownColumn("athlete")), NameListProblem(line: 1, issue: .unknownColumn("Zoë Fernández")),
                                      NameListProblem(line: 1, issue: .missingColumn("kind")), NameListProblem(line: 1, issue: .missingColumn("name"))]),
        ("", [NameListProblem(line: 1, issue: .noHeader)]),
        // Empty names, unknown kinds, numbers and teams where they do not belong.
        ("kind,name\nathlete,Zoë\nopponent,  \n", [NameListProblem(line: 3, issue: .emptyName)]),
        ("kind,name\ncoach,Pat\n,Zoë\n", [NameListProblem(line: 2, issue: .unknownKind("coach")), NameListProblem(line: 3, issue: .unknownKind(""))]),
        ("kind,name,number\nplayer,Zoë,7a\nteam,Granite Bay,3\n", [NameListProblem(line: 2, issue: .numberNotDigits("7a")),
                                                                  NameListProblem(line: 3, issue: .notFor(.team, column: "number"))]),
        ("kind,name,team\nopponent,St. Mary's,Granite Bay\n", [NameListProblem(line: 2, issue: .notFor(.opponent, column: "team"))]),
        // Duplicates inside the file: the same name whatever its case, spacing, apostrophe or accent encoding.
        ("kind,name\nopponent,St. Mary's\nathlete,Zoë\nopponent,ST.  MARY’S\n", [NameListProblem(line: 4, issue: .duplicate(ofLine: 2))]),
        ("kind,name\nathlete,Zo\u{00EB}\nathlete,Zoe\u{0308}\n", [NameListProblem(line: 3, issue: .duplicate(ofLine: 2))]),
        // Quoting mistakes.
        ("kind,name\nopponent,The \"Hawks\"\nathlete,Zoë\n", [NameListProblem(line: 2, issue: .strayQuote)]),
        ("kind,name\nopponent,\"Hawks\"x\n", [NameListProblem(line: 2, issue: .strayQuote)]),
        ("kind,name\nathlete,Zoë\nopponent,\"Hawks\n", [NameListProblem(line: 3, issue: .unterminatedQuote)]),
    ] as [(String, [NameListProblem])])
    func eachMalformedRowIsReportedByLineAndNothingIsRead(_ text: String, _ expected: [NameListProblem]) {
        #expect(problems(text) == expected)
    }

    @Test func theSameNameWithAnotherNumberOrTeamIsAnotherEntry() throws {
        let names = try parse("kind,name,number,team\nplayer,Pat Lee,7,Granite Bay\nplayer,Pat Lee,12,Granite Bay\nplayer,Pat Lee,7,Summit\nathlete,Pat Lee,,\n")
        #expect(names.count == 4)
    }

    @Test func bytesThatAreNotUTF8AreReportedOnTheirLinesAndTheOthersStillChecked() {
        var data = Data("kind,name\nopponent,St. Mary's\nathlete,Zo".utf8)
        data.append(0xEB)  // ë in Latin-1
        data.append(contentsOf: Data("\ncoach,Pat\n".utf8))
        #expect(problems(data) == [NameListProblem(line: 3, issue: .notUTF8), NameListProblem(line: 4, issue: .unknownKind("coach"))])
        // A file saved as UTF-16 is not read as garbage names.
        let utf16 = "kind,name\nathlete,Zoë\n".data(using: .utf16)!
        #expect(problems(utf16).contains { $0.issue == .notUTF8 })
    }

    @Test func aNameWithAControlCharacterIsRefused() {
        #expect(problems("kind,name\nathlete,Zo\u{1B}[2Jë\n") == [NameListProblem(line: 2, issue: .controlCharacter(column: "name"))])
        #expect(problems("kind,name\nathlete,\"Zoë\u{202E}\"\n") == [NameListProblem(line: 2, issue: .controlCharacter(column: "name"))])
    }

    @Test func theMatchKeyIgnoresCaseSpacingApostropheShapeAndEncodingButNotAccentsOrPeriods() {
        func key(_ name: String) -> String { KnownName(kind: .opponent, name: name).matchKey }
        #expect(key("St. Mary's") == key("  ST.   mary’s "))
        #expect(key("Zo\u{00EB} Fern\u{00E1}ndez") == key("Zoe\u{0308} Ferna\u{0301}ndez"))
        #expect(key("Zoë") != key("Zoe"))
        #expect(key("St. Mary's") != key("St Mary's"))
        #expect(key("Westfield") != key("Westfield Academy"))
        #expect(KnownName(kind: .player, name: "Pat", number: "07").matchKey != KnownName(kind: .player, name: "Pat", number: "7").matchKey)
    }

    @Test func anApprovedGameLogsNamesByKind() {
        let goalie = GameLogDraft(role: "goalie", athlete: "Zoë Fernández", opponent: "St. Mary's")
        #expect(goalie.knownNames == [KnownName(kind: .athlete, name: "Zoë Fernández"), KnownName(kind: .opponent, name: "St. Mary's")])
        let box = GameLogDraft(role: "team", athlete: "Granite Bay", opponent: " ", players: [
            PlayerLine(line: 1, number: "00", player: "O'Neill"), PlayerLine(line: 2, number: "5", player: nil),
        ])
        #expect(box.knownNames == [KnownName(kind: .team, name: "Granite Bay"),
                                   KnownName(kind: .player, name: "O'Neill", number: "00", team: "Granite Bay")])
    }
}

/// A template's text field says which kind of name it holds; `template check` refuses what cannot be.
@Suite struct TemplateNamesTests {
    @Test func theBundledTemplatesSayWhichNamesTheirTextFieldsHold() throws {
        func template(_ name: String) throws -> SheetTemplate {
            try SheetTemplate.decode(try Data(contentsOf: repositoryRoot.appendingPathComponent("Templates/\(name).json")))
        }
        for name in ["lacrosse-goalie", "hockey-goalie", "soccer-keeper"] {
            let t = try template(name)
            #expect(t.field("athlete")?.names == .athlete && t.field("opponent")?.names == .opponent, "\(name)")
        }
        let box = try template("basketball-box")
        #expect(box.field("team")?.names == .team && box.field("opponent")?.names == .opponent)
        #expect(box.fields.filter { $0.id.hasSuffix(".name") }.allSatisfy { $0.names == .player })
        for t in [try template("lacrosse-goalie"), box] {
            #expect(t.fields.filter { $0.kind == .text }.allSatisfy { $0.names != nil }, "every text field of \(t.id) is a name")
        }
    }

    static func problems(_ fields: [[String: Any]], gameLog: [String: Any]? = nil) throws -> [String] {
        var object: [String: Any] = ["format": 1, "id": "tiny", "version": 1, "title": "Tiny", "page": ["width": 612, "height": 792],
                                     "fields": fields]
        object["gameLog"] = gameLog
        let data = try JSONSerialization.data(withJSONObject: object)
        do {
            _ = try SheetTemplate.decode(data)
            return []
        } catch {
            return error.problems
        }
    }

    static var goalieFields: [[String: Any]] { [
        ["id": "who", "kind": "text", "rect": [100, 100, 200, 28], "names": "athlete"],
        ["id": "vs", "kind": "text", "rect": [100, 150, 200, 28], "names": "opponent"],
        ["id": "day", "kind": "date", "rect": [100, 200, 160, 28], "combs": 6],
        ["id": "p1.shots", "kind": "count", "rect": [100, 250, 60, 28], "combs": 2],
    ] }
    static var goalieLog: [String: Any] {
        ["role": "goalie", "athlete": "who", "date": "day", "opponent": "vs", "periods": ["p1": "p1"], "stats": ["shots": "shots"]]
    }

    @Test func aTemplateWithNamesOnItsTextFieldsIsFine() throws {
        #expect(try Self.problems(Self.goalieFields, gameLog: Self.goalieLog) == [])
    }

    @Test func anUnknownKindOfNameListsTheKinds() throws {
        #expect(try Self.problems([["id": "vs", "kind": "text", "rect": [100, 150, 200, 28], "names": "rival"]])
                == ["fields[0].names: not one of athlete, opponent, player, team"])
    }

    @Test func onlyATextFieldHoldsNames() throws {
        #expect(try Self.problems([["id": "n", "kind": "digits", "rect": [100, 150, 60, 28], "combs": 2, "names": "player"]])
                == ["fields[0] 'n': only a text field holds names, not a digits (names \"player\")"])
    }

    @Test func aGameLogsAthleteOrOpponentFieldMustHoldThatKindOfName() throws {
        var swapped = Self.goalieFields
        swapped[0]["names"] = "opponent"
        swapped[1]["names"] = "team"
        #expect(try Self.problems(swapped, gameLog: Self.goalieLog) == [
            "gameLog.athlete: field 'who' holds opponent names; a goalie game log's athlete holds athlete names",
            "gameLog.opponent: field 'vs' holds team names; a goalie game log's opponent holds opponent names",
        ])
        var team = Self.goalieLog
        team["role"] = "team"
        #expect(try Self.problems(Self.goalieFields, gameLog: team)
                == ["gameLog.athlete: field 'who' holds athlete names; a team game log's athlete holds team names"])
    }
}
