import Foundation
import GRDB
import Testing

/// `statsheet review` driven through a real pseudo-terminal with scripted keys, then the SQLite store
/// read with SQL: what a person sees, and what is recorded.
@Suite struct ReviewCLITests {
    static let printed = CLITests.root.appendingPathComponent("TestImages/lacrosse-goalie/printed")
    static let altScreenExit = "\u{1B}[?1049l"
    static let esc = "\u{1B}"

    /// sheet-019 and, with `cleanToo`, sheet-001 queued by --review-all, scanned once per kind into a store
    /// that each test copies. Its sums make sheet-019's ot.saves sure: the store is then given that reading as
    /// flagged, at its reader's own confidence, so that the walk has one flagged field.
    static let scanned: URL = scan(["sheet-019.jpg"])
    static let scannedTwo: URL = scan(["sheet-019.jpg", "sheet-001.jpg"])

    /// Where the scanned stores live: removed when the test process ends, since Swift Testing has no teardown
    /// for a suite's static fixtures.
    static let fixtures: URL = {
        let folder = try! CLITests.temporaryFolder()
        atexit { try? FileManager.default.removeItem(at: ReviewCLITests.fixtures) }
        return folder
    }()

    static func scan(_ names: [String]) -> URL {
        let folder = fixtures.appendingPathComponent(UUID().uuidString)
        try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in names {
            try! FileManager.default.copyItem(at: printed.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        let db = folder.appendingPathComponent("store.sqlite")
        let run = try! CLITests.run(["scan", "--db", db.path, "--review-all", "--jobs", "1"] + names.map { folder.appendingPathComponent($0).path })
        precondition(run.status == 0, run.stdout + run.stderr)
        try! database(db.path).write { db in
            try db.execute(sql: """
                UPDATE field_readings SET flagged = 1, confidence = ink_confidence
                WHERE field = 'ot.saves' AND sheet_id = (SELECT id FROM sheets WHERE path LIKE '%sheet-019.jpg')
                """)
        }
        return db
    }

    /// A fresh copy of a scanned store, in its own folder.
    static func store(_ source: URL = scanned) throws -> (folder: URL, db: String) {
        let folder = try CLITests.temporaryFolder()
        let db = folder.appendingPathComponent("store.sqlite")
        let copy = try database(db.path)
        try database(source.path).backup(to: copy)
        // Closed now rather than whenever its last reference goes: the test opens the copy next, and
        // under load a connection still closing held it locked ("database is locked", once in CI).
        try copy.close()
        return (folder, db.path)
    }

    /// The test's own connection to a store: it waits for a lock the statsheet process holds instead of
    /// failing at once (GRDB's default).
    static func database(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    static func query<T: DatabaseValueConvertible>(_ db: String, _ sql: String) throws -> T? {
        try database(db).read { try T.fetchOne($0, sql: sql) }
    }

    static func open(_ db: String, reviewer: String = "ann", environment: [String: String] = [:], columns: UInt16 = 80,
                     rows: UInt16 = 24) throws -> PseudoTerminal {
        let terminal = try PseudoTerminal(["review", "--db", db, "--reviewer", reviewer], environment: environment, columns: columns, rows: rows)
        #expect(terminal.waitFor("statsheet review — sheet 1 of"), "\(terminal.text())")
        return terminal
    }

    /// The "done when" walk: see the cell, correct fields, approve; the game log holds the corrected
    /// numbers and the correction rows the original reading, reviewer and time.
    @Test func correctAndApproveRecordsEverything() throws {
        let (folder, db) = try Self.store()
        defer { try? FileManager.default.removeItem(at: folder) }
        let started = Date()
        let t = try Self.open(db)
        #expect(t.waitFor("ot.saves (count)  FLAGGED"))
        // The reader's own confidence, which the store was given above.
        let stored: Double? = try Self.query(db, """
            SELECT confidence FROM field_readings
            WHERE field = 'ot.saves' AND sheet_id = (SELECT id FROM sheets WHERE path LIKE '%sheet-019.jpg')
            """)
        let ink = try #require(stored)
        #expect(t.text().contains("\(Int(ink.rounded()))% sure"))
        // The cell image: 24-bit colour half-blocks.
        #expect(t.raw.contains("▀"))
        #expect(t.raw.contains("\(Self.esc)[0;38;2;"))
        // Accept ot.saves as read; then ot.clears (two down) 1 → 2 and total.clears (four more) 40 → 41.
        #expect(t.type("\r", expect: "ot.saves: 0 accepted as read."))
        #expect(t.type("jj", expect: "field 27/31: ot.clears"))
        #expect(t.type("e", expect: "new value for ot.clears"))
        #expect(t.type("2 # recounted\r", expect: "✗ 1 rule fail: clears.periods-sum"))
        #expect(t.type("jjjj", expect: "field 31/31: total.clears"))
        #expect(t.type("e41\r", expect: "✓ every rule holds"))
        #expect(t.type("a", expect: "Approved sheet-019.jpg: its game log holds the corrected numbers."))
        #expect(t.waitFor("Nothing waits for review"))
        t.send("q")
        #expect(t.waitForExit() == 0)
        #expect(t.raw.contains(Self.altScreenExit))

        #expect(try Self.query(db, "SELECT clears FROM goalie_game_logs") == 41)
        #expect(try Self.query(db, "SELECT ot_clears FROM goalie_game_logs") == 2)
        #expect(try Self.query(db, "SELECT approved_by FROM goalie_game_logs") == "ann")
        let row = try #require(try Self.database(db).read {
            try Row.fetchOne($0, sql: "SELECT * FROM corrections WHERE field = 'ot.clears'")
        })
        #expect(row["original_value"] as String == "1")
        #expect(row["original_text"] as String == "1")
        #expect((row["original_confidence"] as Double) > 0)
        #expect(row["new_value"] as String == "2")
        #expect(row["reviewer"] as String == "ann")
        #expect(row["note"] as String == "recounted")
        let at = try Date((row["corrected_at"] as String), strategy: .iso8601)
        #expect(at >= started.addingTimeInterval(-1) && at <= Date())
        #expect(try Self.query(db, "SELECT note FROM corrections WHERE field = 'ot.saves'") == "accepted as read")
        #expect(try Self.query(db, "SELECT decision FROM review_decisions") == "approved")
    }

    /// Undo marks the change undone (kept on record); approving over failing rules needs a typed
    /// reason, which is recorded with the rules that failed.
    @Test func undoThenOverride() throws {
        let (folder, db) = try Self.store()
        defer { try? FileManager.default.removeItem(at: folder) }
        let t = try Self.open(db)
        #expect(t.type("e5\r", expect: "ot.balance"))
        #expect(t.type("u", expect: "Undone: ot.saves 5 (by ann); it is 0 again."))
        #expect(t.waitFor("✓ every rule holds"))
        #expect(t.type("e5 # as written\r", expect: "ot.saves: 0 → 5 saved."))
        #expect(t.type("a", expect: "approve anyway because:"))
        #expect(t.type("\r", expect: "A reason is required"))
        #expect(t.type("coach confirmed the sheet\r", expect: "Approved sheet-019.jpg over failing rules (coach confirmed the sheet)"))
        t.send("q")
        #expect(t.waitForExit() == 0)

        #expect(try Self.query(db, "SELECT reason FROM review_decisions WHERE decision = 'approved'") == "coach confirmed the sheet")
        let failures: String = try #require(try Self.query(db, "SELECT rule_failures FROM review_decisions"))
        #expect(failures.contains("ot.balance"))
        #expect(try Self.query(db, "SELECT COUNT(*) FROM corrections") == 2)
        #expect(try Self.query(db, "SELECT undone_by FROM corrections ORDER BY id LIMIT 1") == "ann")
        #expect(try Self.query(db, "SELECT COUNT(*) FROM corrections WHERE undone_at IS NULL") == 1)
        #expect(try Self.query(db, "SELECT ot_saves FROM goalie_game_logs") == 5)
    }

    /// A change survives quitting; the next session resumes with it; reject needs a reason; Ctrl-C and
    /// SIGINT restore the terminal.
    @Test func quitResumeRejectAndInterrupt() throws {
        let (folder, db) = try Self.store(Self.scannedTwo)
        defer { try? FileManager.default.removeItem(at: folder) }
        var t = try Self.open(db)
        #expect(t.waitFor("sheet 1 of 2"))
        #expect(t.type("e7\r", expect: "ot.saves: 0 → 7 saved."))
        t.send("q")
        #expect(t.waitForExit() == 0)
        #expect(t.raw.contains(Self.altScreenExit))
        #expect(try Self.query(db, "SELECT new_value FROM corrections") == "7")

        t = try Self.open(db)
        #expect(t.waitFor("now    7  by ann"))
        #expect(t.type("r", expect: "reject: why?"))
        #expect(t.type("\r", expect: "A reason is required to reject"))
        #expect(t.type("wrong athlete's sheet\r", expect: "Rejected sheet-019.jpg: wrong athlete's sheet."))
        #expect(t.waitFor("sheet 1 of 1"))
        let before = t.mark
        t.send("\u{03}")
        #expect(t.waitForExit() == 130)
        #expect(t.raw(after: before).contains(Self.altScreenExit))

        t = try Self.open(db)
        #expect(t.waitFor("sheet 1 of 1"))
        t.signal(SIGINT)
        #expect(t.waitForExit() == 130)
        #expect(t.raw.contains(Self.altScreenExit))
        #expect(try Self.query(db, "SELECT reason FROM review_decisions WHERE decision = 'rejected'") == "wrong athlete's sheet")
        #expect(try Self.query(db, "SELECT COUNT(*) FROM goalie_game_logs") == 0)
    }

    /// NO_COLOR draws the cell with the shade ramp and no colour escapes; a resize redraws at the new size.
    @Test func plainFallbackAndResize() throws {
        let (folder, db) = try Self.store()
        defer { try? FileManager.default.removeItem(at: folder) }
        let t = try Self.open(db, environment: ["NO_COLOR": "1"])
        #expect(t.waitFor("ot.saves (count)"))
        #expect(!t.raw.contains("\(Self.esc)[0;38;2;"))
        #expect(!t.raw.contains("▀"))
        #expect(t.text().contains("@"))
        #expect(!t.text().contains("q quit"))  // cut at 80 columns
        let before = t.mark
        t.resize(columns: 120, rows: 30)
        #expect(t.waitFor("? help  q quit", after: before))
        t.send("q")
        #expect(t.waitForExit() == 0)
    }

    /// A sheet stored without snapshots (before they were kept) shows its cell cut again from the file.
    @Test func cellImageFromTheFileWhenTheStoreHasNone() throws {
        let (folder, db) = try Self.store()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.database(db).write { try $0.execute(sql: "DELETE FROM cell_images") }
        let t = try Self.open(db, environment: ["NO_COLOR": "1"])
        #expect(t.waitFor("cell ot.saves"))
        #expect(!t.text().contains("no image of this cell"))
        #expect(t.text().contains("@"))
        t.send("q")
        #expect(t.waitForExit() == 0)
    }

    /// Two terminals on one sheet: the second writer meets the first's change, keeps both when they
    /// touch different fields, and is told; on the same field the first stands and the second sees it.
    @Test func twoTerminalsOnOneSheet() throws {
        let (folder, db) = try Self.store()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ann = try Self.open(db, reviewer: "ann")
        let bob = try Self.open(db, reviewer: "bob")
        #expect(ann.type("e0 # checked\r", expect: "ot.saves: 0 → 0 saved."))
        #expect(bob.type("jje2\r", expect: "ot.clears: 1 → 2 saved. On top of someone else's change, now shown."))
        let mark = ann.mark
        #expect(ann.type("e5\r", expect: "On top of someone else's change"))
        #expect(ann.waitFor("clears.periods-sum", after: mark))  // bob's ot.clears, now on ann's screen
        #expect(bob.type("kke3\r", expect: "ann changed ot.saves to 5 meanwhile: yours is not saved"))
        for t in [ann, bob] {
            t.send("q")
            #expect(t.waitForExit() == 0)
        }
        let rows = try Self.database(db).read { try Row.fetchAll($0, sql: "SELECT reviewer, field, new_value FROM corrections ORDER BY id") }
        #expect(rows.map { "\($0["reviewer"] as String) \($0["field"] as String) \($0["new_value"] as String)" } == ["ann ot.saves 0", "bob ot.clears 2", "ann ot.saves 5"])
    }

    @Test func refusesWithoutATerminal() throws {
        let run = try CLITests.run(["review", "--db", Self.scanned.path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("stdin is not a terminal"), "\(run.stderr)")
    }

    @Test func applyIsValidatedWholeThenRecorded() throws {
        let (folder, db) = try Self.store()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sha: String = try #require(try Self.query(db, "SELECT sha256 FROM sheets"))
        let bad = folder.appendingPathComponent("bad.json")
        try Data("""
            [{"sheet": 1, "field": "ot.clears", "value": 2, "note": "recounted"},
             {"sheet": 1, "field": "ot.clearz", "value": 2},
             {"sheet": "\(sha)", "field": "ot.saves", "value": "seven"},
             {"sheet": 99, "field": "ot.saves", "value": 1}]
            """.utf8).write(to: bad)
        let refused = try CLITests.run(["review", "--db", db, "--apply", bad.path, "--reviewer", "bob"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("nothing applied"), "\(refused.stderr)")
        #expect(refused.stderr.contains("entry 2: sheet 1 has no field 'ot.clearz'"))
        #expect(refused.stderr.contains("entry 3: ot.saves: 'seven' is not a count"))
        #expect(refused.stderr.contains("entry 4: no stored sheet 99"))
        #expect(try Self.query(db, "SELECT COUNT(*) FROM corrections") == 0)

        let good = folder.appendingPathComponent("good.json")
        try Data("""
            [{"sheet": 1, "field": "ot.clears", "value": 2, "note": "recounted"},
             {"sheet": "\(sha)", "field": "total.clears", "value": "41"}]
            """.utf8).write(to: good)
        let applied = try CLITests.run(["review", "--db", db, "--apply", good.path, "--reviewer", "bob"])
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(applied.stdout.contains("sheet 1 ot.clears: 1 → 2 (recounted)"), "\(applied.stdout)")
        #expect(applied.stdout.contains("applied 2 corrections to 1 sheet as bob"))
        #expect(try Self.query(db, "SELECT COUNT(*) FROM corrections WHERE reviewer = 'bob'") == 2)
        #expect(try Self.query(db, "SELECT original_value FROM corrections WHERE field = 'total.clears'") == "40")
    }
}
