import Foundation
import SheetStore
import StoreTestSupport
import Testing

/// `statsheet names import` and `names list` through the built binary, on real SQLite files; the
/// names a scanned clean sheet teaches; `template check` of a field's `names`.
@Suite struct NamesCLITests {
    static let roster = #"""
        kind,name,number,team
        athlete,Zoë Fernández,1,Granite Bay
        opponent,"St. Mary's",,
        opponent,O'Neill Prep,,
        player,"Lee, ""Cam""",00,Granite Bay
        team,Granite Bay,,

        """#

    @Test func importListAndImportAgainAddsNothing() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("roster.csv")
        try Data(Self.roster.utf8).write(to: file)
        let db = folder.appendingPathComponent("club.sqlite").path

        let first = try CLITests.run(["names", "import", "--db", db, file.path])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "imported 5 names from \(file.path) into \(db)\n")
        let again = try CLITests.run(["names", "import", "--db", db, file.path])
        #expect(again.stdout == "imported 0 names from \(file.path) into \(db) (5 already known)\n")

        // The CSV listing is the import's format: the names come back as written.
        let csv = try CLITests.run(["names", "list", "--db", db, "--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(csv.stdout == #"""
            kind,name,number,team,source
            athlete,Zoë Fernández,1,Granite Bay,import
            opponent,O'Neill Prep,,,import
            opponent,St. Mary's,,,import
            player,"Lee, ""Cam""",00,Granite Bay,import
            team,Granite Bay,,,import

            """#)
        let relisted = folder.appendingPathComponent("relisted.csv")
        try Data(csv.stdout.utf8).write(to: relisted)
        #expect(try CLITests.run(["names", "import", "--db", db, relisted.path]).stderr.contains("unknown column 'source'"),
                "a listing with its source column is not a names file as it is")

        let opponents = try CLITests.run(["names", "list", "--db", db, "--kind", "opponent"])
        #expect(opponents.stdout == """
            kind      name          number  team  source
            opponent  O'Neill Prep                import
            opponent  St. Mary's                  import
            2 names

            """)
        #expect(try CLITests.run(["names", "list", "--db", db, "--kind", "coach"]).status != 0)
    }

    @Test func aMalformedFileIsReportedLineByLineAndNothingIsImported() async throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("club.sqlite").path
        let good = folder.appendingPathComponent("roster.csv")
        try Data(Self.roster.utf8).write(to: good)
        #expect(try CLITests.run(["names", "import", "--db", db, good.path]).status == 0)

        var bad = Data("kind,name\nopponent,Westfield Academy\nopponent,\ncoach,Pat\nopponent,westfield  academy\nathlete,Zo".utf8)
        bad.append(0xEB)
        bad.append(contentsOf: Data("\nathlete,Sam,7\n".utf8))
        let file = folder.appendingPathComponent("bad.csv")
        try bad.write(to: file)
        let run = try CLITests.run(["names", "import", "--db", db, file.path])
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        let path = file.path
        for line in ["\(path):3: empty name", "\(path):4: unknown kind 'coach'; one of athlete, opponent, player, team",
                     "\(path):5: the same name as line 2", "\(path):6: not UTF-8 text", "\(path):7: 3 fields, the header has 2",
                     "nothing imported: 5 problems in \(path)"] {
            #expect(run.stderr.contains(line), "\(line) in \(run.stderr)")
        }
        let store = try SQLiteSheetStore(path: db)
        #expect(try await store.knownNames(kind: nil).count == 5, "only the good file's names")
        #expect(try await store.knownNames(kind: .opponent).allSatisfy { !$0.name.name.contains("Westfield") })
    }

    @Test func aScannedCleanSheetTeachesItsNames() async throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("club.sqlite").path
        let sheet = CLITests.root.appendingPathComponent("TestImages/basketball-box/printed/sheet-005.jpg")
        let scan = try CLITests.run(["scan", "--db", db, sheet.path])
        #expect(scan.status == 0, "\(scan.stderr)")
        let store = try SQLiteSheetStore(path: db)
        let log = try #require(try await store.gameLogs(sheetID: nil).first)
        #expect(log.approvedAt != nil, "sheet-005 is read clean")
        let names = try await store.knownNames(kind: nil)
        let lines = try await store.boxScoreLines(GameLogFilter())
        #expect(names.filter { $0.name.kind == .team }.map(\.name.name) == [try #require(log.athlete)])
        #expect(names.filter { $0.name.kind == .opponent }.map(\.name.name) == [try #require(log.opponent)])
        #expect(Set(names.filter { $0.name.kind == .player }.map { "\($0.name.number ?? "")|\($0.name.name)|\($0.name.team ?? "")" })
                == Set(lines.map { "\($0.number ?? "")|\($0.player ?? "")|\(log.athlete ?? "")" }))
        #expect(names.allSatisfy { $0.source == .sheet })
        let list = try CLITests.run(["names", "list", "--db", db, "--kind", "team"])
        #expect(list.stdout.contains("team  \(log.athlete ?? "")") && list.stdout.hasSuffix("sheet\n1 name\n"), "\(list.stdout)")
    }

    @Test func templateCheckNamesAFieldHoldingAnUnknownKindOfName() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var template = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: TemplateCLITests.templates.appendingPathComponent("hockey-goalie.json"))) as? [String: Any])
        var fields = try #require(template["fields"] as? [[String: Any]])
        let opponent = try #require(fields.firstIndex { $0["id"] as? String == "opponent" })
        fields[opponent]["names"] = "rival"
        template["fields"] = fields
        let file = folder.appendingPathComponent("hockey.json")
        try JSONSerialization.data(withJSONObject: template).write(to: file)
        let check = try CLITests.run(["template", "check", file.path])
        #expect(check.status == 1)
        #expect(check.stdout.contains("\(file.path): fields[\(opponent)].names: not one of athlete, opponent, player, team"), "\(check.stdout)")
    }
}

/// The same roster into a PostgreSQL store: the names come back as written, and importing again adds nothing.
@Suite(.enabled(if: TestPostgres.enabled, Comment(rawValue: TestPostgres.disabledReason)))
struct PostgresNamesCLITests {
    @Test func importListAndImportAgainOnPostgreSQL() async throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("roster.csv")
        try Data(NamesCLITests.roster.utf8).write(to: file)
        try await TestPostgres.withDatabase { url in
            let first = try CLITests.run(["names", "import", "--db", url, file.path])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.hasPrefix("imported 5 names from \(file.path) into postgres://statsheet:***@"), "\(first.stdout)")
            #expect(!first.stdout.contains(try TestPostgres.password()))
            #expect(try CLITests.run(["names", "import", "--db", url, file.path]).stdout.contains("imported 0 names"))
            let csv = try CLITests.run(["names", "list", "--db", url, "--format", "csv", "--kind", "opponent"])
            #expect(csv.stdout == "kind,name,number,team,source\nopponent,O'Neill Prep,,,import\nopponent,St. Mary's,,,import\n")
            let athletes = try CLITests.run(["names", "list", "--db", url, "--format", "csv", "--kind", "athlete"])
            #expect(athletes.stdout.hasSuffix("athlete,Zoë Fernández,1,Granite Bay,import\n"))
        }
    }
}

/// Names learnt from an approved sheet are read on the next scan.
@Suite struct NamesLearntCLITests {
    /// The athlete field of a hand-filled phone sheet scanned into the store `db`.
    static func athlete(_ sheet: String, into db: String) throws -> [String: Any] {
        let set = CLITests.root.appendingPathComponent("TestImages/lacrosse-goalie/handwritten-phone")
        let scan = try CLITests.run(["scan", "--db", db, "--json", "--writing", "hand", "--today", "2026-11-22",
                                     set.appendingPathComponent("\(sheet).jpg").path])
        let line = try #require(scan.stdout.split(separator: "\n").first, "\(scan.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let fields = try #require(object["fields"] as? [String: Any])
        return try #require(fields["athlete"] as? [String: Any])
    }

    /// Emerson Kelly (sheets 004 and 012) is new to the club, whether it imported its other athletes and
    /// opponents or nothing at all (then its first athlete is new too, however sure Tesseract was).
    @Test(arguments: [true, false])
    func aNewNameIsFlaggedOnceAndReadCleanAfterItsSheetIsApproved(rosterImported: Bool) async throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("club.sqlite").path
        if rosterImported {
            let file = folder.appendingPathComponent("roster.csv")
            try Data("""
                kind,name
                athlete,Drew Patel
                athlete,Sam Okafor
                athlete,Morgan Davis
                opponent,Lakeview HS
                opponent,Pine Ridge

                """.utf8).write(to: file)
            #expect(try CLITests.run(["names", "import", "--db", db, file.path]).status == 0)
        }

        let first = try Self.athlete("sheet-004", into: db)
        #expect(first["value"] as? String == "Emerson Kelly" && first["flagged"] as? Bool == true, "\(first)")
        #expect("\(first["doubts"] ?? "")".contains("unknownName"), "\(first)")
        let store = try SQLiteSheetStore(path: db)
        let log = try #require(try await store.gameLogs(sheetID: nil).first)
        #expect(log.approvedAt == nil, "a sheet with a new name waits for a person")
        try await store.approveGameLog(id: log.id, by: "test", at: Date())
        #expect(try await store.knownNames(kind: .athlete).contains { $0.name.name == "Emerson Kelly" && $0.source == .sheet })

        // Tesseract alone reads this one "Emerson Felly" at 19.
        let later = try Self.athlete("sheet-012", into: db)
        #expect(later["value"] as? String == "Emerson Kelly" && later["flagged"] as? Bool == false, "\(later)")
    }
}

/// A handwritten jersey number is vouched for by a known player alone (`ReadingDoubt.noPlayerVouches`).
@Suite struct JerseyNumberCLITests {
    static let sheet = CLITests.root.appendingPathComponent("TestImages/basketball-box/handwritten-phone/sheet-001")

    /// The box score's jersey numbers as `scan --dry-run --json` reads them (with `--db` when given), beside
    /// the numbers written: field → (written, read, flagged).
    static func numbers(db: String?) throws -> [String: (written: String, read: String?, flagged: Bool)] {
        let scan = try CLITests.run(["scan", "--dry-run", "--json", "--writing", "hand", "--today", "2026-11-23", Self.sheet.path + ".jpg"]
                                    + (db.map { ["--db", $0] } ?? []))
        let line = try #require(scan.stdout.split(separator: "\n").first, "\(scan.stderr)")
        let fields = try #require((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["fields"] as? [String: [String: Any]])
        let truth = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: Self.sheet.appendingPathExtension("truth.json")))
                                  as? [String: Any])?["fields"] as? [String: Any])
        var numbers: [String: (written: String, read: String?, flagged: Bool)] = [:]
        for (id, written) in truth where id.hasSuffix(".num") {
            guard let written = written as? String, !written.isEmpty, let field = fields[id] else { continue }
            numbers[id] = (written, field["value"] as? String, field["flagged"] as? Bool ?? false)
        }
        return numbers
    }

    /// With no roster every number written goes to a person, however sure it was read; with the team's roster
    /// (here the sheet's own players, from its truth), those read as their player's number pass and the
    /// misread one is still flagged. A dry run given `--db` reads with what the store knows.
    @Test func aJerseyNumberIsFlaggedUntilAKnownPlayerVouchesForIt() throws {
        let alone = try Self.numbers(db: nil)
        #expect(alone.count == 12)
        let unflagged = alone.filter { !$0.value.flagged }
        #expect(unflagged.isEmpty, "\(unflagged)")

        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let truth = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: Self.sheet.appendingPathExtension("truth.json")))
                                  as? [String: Any])?["fields"] as? [String: Any])
        let team = try #require(truth["team"] as? String)
        var roster = "kind,name,number,team\nteam,\(team),,\n"
        for (id, number) in alone.sorted(by: { $0.key < $1.key }) {
            let name = try #require(truth[id.replacingOccurrences(of: ".num", with: ".name")] as? String)
            roster += "player,\(name),\(number.written),\(team)\n"
        }
        let file = folder.appendingPathComponent("roster.csv")
        try Data(roster.utf8).write(to: file)
        let db = folder.appendingPathComponent("club.sqlite").path
        #expect(try CLITests.run(["names", "import", "--db", db, file.path]).status == 0)
        // The store and its write-ahead log: a dry run writes neither (a reader of a WAL store may make the
        // log and its index, but writes no frame to the log).
        func storeFiles() -> (store: Data?, log: Data?) {
            (FileManager.default.contents(atPath: db), FileManager.default.contents(atPath: db + "-wal").flatMap { $0.isEmpty ? nil : $0 })
        }
        let before = storeFiles()

        let known = try Self.numbers(db: db)
        let right = known.filter { $0.value.read == $0.value.written }
        #expect(right.count >= 10, "\(known)")
        let rightFlagged = right.filter { $0.value.flagged }
        #expect(rightFlagged.isEmpty, "vouched for by the roster: \(rightFlagged)")
        let misreadUnflagged = known.filter { $0.value.read != $0.value.written && !$0.value.flagged }
        #expect(misreadUnflagged.isEmpty, "\(known)")
        let after = storeFiles()
        #expect(after.store != nil && after.store == before.store && after.log == before.log, "a dry run only reads the store")
    }
}
