import Foundation
import GRDB
import SheetStore
import StoreTestSupport
import Testing

/// `scan` into the store, `games` and `sheets`, driven through the built binary on real SQLite files:
/// exactly once under rescans, SIGKILL and two processes at once; the `goalie_game_logs` view against
/// the bundled samples' ground truth.
@Suite struct StoreCLITests {
    static let samples = CLITests.root.appendingPathComponent("TestImages/lacrosse-goalie/printed")
    static let fieldsPerSheet = 31

    /// A temporary folder holding copies of the first `count` bundled samples (images and truth).
    static func sampleFolder(_ count: Int) throws -> URL {
        let folder = try CLITests.temporaryFolder()
        let images = try FileManager.default.contentsOfDirectory(atPath: samples.path)
            .filter { !$0.hasSuffix(".json") }.sorted().prefix(count)
        for name in images {
            try FileManager.default.copyItem(at: samples.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        return folder
    }

    /// What the store holds, counted with SQL: sheets, distinct hashes, readings, game logs and their stats.
    struct Counts: Equatable, CustomStringConvertible {
        var sheets = 0, hashes = 0, readings = 0, gameLogs = 0, stats = 0, approved = 0, clean = 0, failures = 0
        var description: String {
            "sheets \(sheets), hashes \(hashes), readings \(readings), game logs \(gameLogs) (\(approved) approved), stats \(stats), clean \(clean), failures \(failures)"
        }
    }

    /// The queries behind `Counts`, run the same on SQLite and PostgreSQL.
    static var countQueries: [(WritableKeyPath<Counts, Int>, String)] {
        [
        (\.sheets, "SELECT COUNT(*) FROM sheets"), (\.hashes, "SELECT COUNT(DISTINCT sha256) FROM sheets"),
        (\.readings, "SELECT COUNT(*) FROM field_readings"), (\.gameLogs, "SELECT COUNT(*) FROM game_logs"),
        (\.stats, "SELECT COUNT(*) FROM game_log_stats"), (\.approved, "SELECT COUNT(*) FROM game_logs WHERE approved_at IS NOT NULL"),
        (\.clean, "SELECT COUNT(*) FROM sheets WHERE status = 'clean'"), (\.failures, "SELECT COUNT(*) FROM scan_failures"),
        ]
    }

    static func counts(_ path: String) throws -> Counts {
        guard FileManager.default.fileExists(atPath: path) else { return Counts() }
        let queue = try DatabaseQueue(path: path)
        return try queue.read { db in
            var counts = Counts()
            guard try db.tableExists("sheets") else { return counts }
            for (key, sql) in countQueries { counts[keyPath: key] = try Int.fetchOne(db, sql: sql) ?? 0 }
            return counts
        }
    }

    /// The same counts of a PostgreSQL store (zero before its schema is made).
    static func counts(postgres url: String) async throws -> Counts {
        var counts = Counts()
        guard try await TestPostgres.count("SELECT COUNT(*) FROM pg_tables WHERE tablename = 'sheets'", in: url) > 0 else { return counts }
        for (key, sql) in countQueries { counts[keyPath: key] = try await TestPostgres.count(sql, in: url) }
        return counts
    }

    /// Every stored sheet is whole: all its readings, one game log with all its 24 numbers.
    static func expectWhole(_ c: Counts, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(c.hashes == c.sheets, "\(c)", sourceLocation: sourceLocation)
        #expect(c.readings == c.sheets * fieldsPerSheet, "\(c)", sourceLocation: sourceLocation)
        #expect(c.gameLogs == c.sheets, "\(c)", sourceLocation: sourceLocation)
        #expect(c.stats == c.gameLogs * 24, "\(c)", sourceLocation: sourceLocation)
        #expect(c.approved <= c.clean, "\(c)", sourceLocation: sourceLocation)
    }

    static func process(_ arguments: [String]) -> Process {
        let p = Process()
        p.executableURL = CLITests.binary
        p.arguments = arguments
        p.currentDirectoryURL = CLITests.root
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        return p
    }

    @Test func rescanAddsNothingAndFailuresAreRetried() throws {
        let folder = try Self.sampleFolder(2)
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("store.sqlite").path
        let broken = folder.appendingPathComponent("sheet-999.png")
        try Data("not a picture".utf8).write(to: broken)

        let first = try CLITests.run(["scan", "--db", db, folder.path])
        #expect(first.status == 1)
        #expect(first.stdout.contains("3 sheets: 3 read"), "\(first.stdout)")
        // The summary counts the failures by the stage that failed, from their type, not their words.
        #expect(first.stdout.contains("failed: 1 could not be loaded\n"), "\(first.stdout)")
        #expect(first.stdout.contains("stored in \(db): 2 new sheets"), "\(first.stdout)")
        var failed = try CLITests.run(["sheets", "--db", db, "--status", "failed"])
        #expect(failed.stdout.contains("sheet-999.png: FAILED — not an image"), "\(failed.stdout)")
        #expect(failed.stdout.contains("(1 attempt)"))

        let second = try CLITests.run(["scan", "--db", db, folder.path])
        #expect(second.status == 1)
        #expect(second.stdout.contains("3 sheets: 1 read (0 clean, 0 need review, 1 failed), 2 already in the store"), "\(second.stdout)")
        failed = try CLITests.run(["sheets", "--db", db, "--status", "failed"])
        #expect(failed.stdout.contains("(2 attempts)"), "\(failed.stdout)")

        // Fixed: the file now holds a real sheet, and the next run reads and stores it.
        try FileManager.default.removeItem(at: broken)
        try FileManager.default.copyItem(at: Self.samples.appendingPathComponent("sheet-004.png"), to: broken)
        let third = try CLITests.run(["scan", "--db", db, folder.path])
        #expect(third.status == 0, "\(third.stdout)")
        let c = try Self.counts(db)
        #expect(c.sheets == 3)
        #expect(c.failures == 0)
        Self.expectWhole(c)
        #expect(try CLITests.run(["sheets", "--db", db]).stdout.contains("3 sheets"))

        // --reread reads stored sheets again and replaces them in place.
        let reread = try CLITests.run(["scan", "--reread", "--db", db, folder.path])
        #expect(reread.stdout.contains("stored in \(db): 0 new sheets, 3 read again"), "\(reread.stdout)")
        #expect(try Self.counts(db) == c)
    }

    /// On a terminal (here util-linux `script`'s pseudo-terminal) a progress bar with rate and ETA is drawn.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func progressBarOnlyOnATerminal() throws {
        let folder = try Self.sampleFolder(2)
        defer { try? FileManager.default.removeItem(at: folder) }
        let command = [CLITests.binary.path, "scan", "--dry-run", "--jobs", "2", folder.path].map { "'\($0)'" }.joined(separator: " ")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        p.arguments = ["-qec", command, "/dev/null"]
        let out = Pipe()
        p.standardOutput = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(text.contains("2/2  "), "\(text)")
        #expect(text.contains("sheets/s  ETA 0:00"), "\(text)")
        #expect(text.contains("2 sheets: 2 read"))
    }

    /// STATSHEET_DB names the store when --db is not given.
    @Test func storeFromTheEnvironment() throws {
        let folder = try Self.sampleFolder(1)
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("env.sqlite").path
        let p = Self.process(["scan", folder.path])
        p.environment = ProcessInfo.processInfo.environment.merging(["STATSHEET_DB": db]) { _, new in new }
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(try Self.counts(db).sheets == 1)
    }

    @Test func dryRunStoresNothing() throws {
        let folder = try Self.sampleFolder(1)
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("store.sqlite").path
        let r = try CLITests.run(["scan", "--dry-run", "--db", db, folder.path])
        #expect(r.status == 0)
        #expect(r.stdout.contains("dry run: nothing stored"))
        #expect(!r.stderr.contains("sheets/s"), "no progress bar when output is piped")
        #expect(r.stderr.contains("note: no store at \(db) yet"), "a store given and missing is said, then read as a new one: \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db))
        let games = try CLITests.run(["games", "--db", db])
        #expect(games.status == 1)
        #expect(games.stderr.contains("no store at \(db)"))
    }

    /// Metadata missing from a sheet comes from flags and is recorded as given by flag.
    @Test func flagsFillMissingMetadata() async throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let blank = folder.appendingPathComponent("blank.png").path
        #expect(try CLITests.run(["template", "render", "lacrosse-goalie", "--out", blank, "--dpi", "150"]).status == 0)
        let db = folder.appendingPathComponent("store.sqlite").path
        let r = try CLITests.run(["scan", "--db", db, "--athlete", "Sam Flag", "--context", "club", blank])
        #expect(r.status == 0, "\(r.stderr)")
        let logs = try await SQLiteSheetStore(path: db).gameLogs(sheetID: nil)
        #expect(logs.count == 1)
        #expect(logs.first?.athlete == "Sam Flag")
        #expect(logs.first?.context == "club")
        #expect(logs.first?.approvedAt == nil, "a blank sheet breaks rules, so it waits for review")
        let bad = try CLITests.run(["scan", "--db", db, "--context", "varsity", blank])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--context must be one of club, high_school"))
    }

    /// The view's rows are the bundled samples' ground truth, for every sheet approved.
    @Test func goalieGameLogsMatchTheGroundTruth() async throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("store.sqlite").path
        let scan = try CLITests.run(["scan", "--db", db, "--jobs", "2", Self.samples.path])
        #expect(scan.status == 0, "\(scan.stderr)")

        let store = try SQLiteSheetStore(path: db)
        let logs = try await store.goalieGameLogs(GameLogFilter())
        let clean = try await store.sheets(status: .clean)
        #expect(logs.count == clean.count)
        #expect(logs.count >= 28, "most samples are clean")
        var checked = 0
        for log in logs {
            let name = URL(fileURLWithPath: log.sheetPath).deletingPathExtension().lastPathComponent
            let truthURL = Self.samples.appendingPathComponent(name + ".truth.json")
            let truth = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: truthURL)) as? [String: Any])
            let fields = try #require(truth["fields"] as? [String: Any])
            func int(_ id: String) -> Int? { fields[id] as? Int }
            #expect(log.athlete == fields["athlete"] as? String, "\(name)")
            #expect(log.opponent == fields["opponent"] as? String, "\(name)")
            #expect(log.date == fields["date"] as? String, "\(name)")
            #expect(log.context == ((fields["context.hs"] as? Bool) == true ? "high_school" : "club"), "\(name)")
            let conference: String? = (fields["conference.conf"] as? Bool) == true ? "conference"
                : (fields["conference.nonconf"] as? Bool) == true ? "non_conference" : nil
            #expect(log.conference == conference, "\(name)")
            func stats(_ row: String) -> GoalieStats {
                GoalieStats(shots: int("\(row).shots"), saves: int("\(row).saves"), goalsAllowed: int("\(row).goals"), clears: int("\(row).clears"))
            }
            #expect(log.totals == stats("total"), "\(name)")
            for (column, row) in [("p1", "q1"), ("p2", "q2"), ("p3", "q3"), ("p4", "q4"), ("ot", "ot")] {
                #expect(log.periods[column] == stats(row), "\(name) \(row)")
            }
            checked += 1
        }
        #expect(checked == logs.count)
        // sheet-001 is dated in the future: it waits for review and is not a game log yet.
        #expect(!logs.contains { $0.sheetPath.hasSuffix("sheet-001.jpg") })
        let waiting = try CLITests.run(["sheets", "--db", db, "--status", "waiting"])
        #expect(waiting.stdout.contains("sheet-001.jpg"))
        #expect(waiting.stdout.contains("date.not-future"))

        let csv = try CLITests.run(["games", "--db", db, "--format", "csv"])
        let lines = csv.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("game_log_id,athlete,game_date,context,conference,opponent,shots,saves,goals_allowed,clears,p1_shots") == true)
        #expect(lines.count == logs.count + 1)
        let json = try CLITests.run(["games", "--db", db, "--format", "json", "--athlete", "quinn walker", "--from", "2026-01-01"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let expected = logs.filter { $0.athlete == "Quinn Walker" && ($0.date ?? "") >= "2026-01-01" }
        #expect(rows.count == expected.count)
        #expect(rows.map { $0["game_date"] as? String } == expected.map(\.date))
        let table = try CLITests.run(["games", "--db", db])
        #expect(table.stdout.contains("\(logs.count) games"))
        let badDate = try CLITests.run(["games", "--db", db, "--from", "04/11/2026"])
        #expect(badDate.status == 64)
        #expect(badDate.stderr.contains("--from must be a date YYYY-MM-DD"))
    }

    /// `kill -9` at random moments, then a rerun: every sheet stored exactly once, none partly.
    @Test func sigkillAtRandomMomentsThenRerunStoresEverySheetOnce() async throws {
        let folder = try Self.sampleFolder(8)
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("store.sqlite").path
        try await Self.killScansThenRerun(db: db, folder: folder, sheets: 8, runs: 5, window: 0.15...1.6) { try Self.counts(db) }
    }

    /// Runs `scan` of `folder` into `db` `runs` times, each `kill -9`ed at a random moment in
    /// `window` seconds, checking after each that every stored sheet is whole; then a rerun stores
    /// all `sheets` once, and another adds nothing. Shared by the SQLite and PostgreSQL tests.
    static func killScansThenRerun(db: String, folder: URL, sheets: Int, runs: Int, window: ClosedRange<Double>,
                                   counts: () async throws -> Counts) async throws {
        var kills = 0
        for _ in 0..<runs {
            let p = process(["scan", "--jobs", "2", "--db", db, folder.path])
            try p.run()
            let deadline = Date().addingTimeInterval(Double.random(in: window))
            while p.isRunning && Date() < deadline { usleep(5_000) }
            if p.isRunning {
                kill(p.processIdentifier, SIGKILL)
                kills += 1
            }
            p.waitUntilExit()
            expectWhole(try await counts())
        }
        let rerun = try CLITests.run(["scan", "--jobs", "2", "--db", db, folder.path])
        #expect(rerun.status == 0, "\(rerun.stdout)\(rerun.stderr)")
        let c = try await counts()
        #expect(c.sheets == sheets, "\(c)")
        expectWhole(c)
        #expect(kills >= 1, "no run was killed: the kill window missed every scan")
        let again = try CLITests.run(["scan", "--db", db, folder.path])
        #expect(again.stdout.contains("\(sheets) already in the store"), "\(again.stdout)")
        #expect(try await counts() == c)
    }

    /// Two processes over the same folder and a new store at once: no sheet or game log twice.
    @Test func twoConcurrentScansDoNotDuplicate() throws {
        let sheets = 6
        let folder = try Self.sampleFolder(sheets)
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("store.sqlite").path
        let outputs = [folder.appendingPathComponent("a.txt"), folder.appendingPathComponent("b.txt")]
        let errors = outputs.map { $0.appendingPathExtension("err") }
        let processes = try zip(outputs, errors).map { out, err in
            _ = FileManager.default.createFile(atPath: out.path, contents: nil)
            _ = FileManager.default.createFile(atPath: err.path, contents: nil)
            let p = Self.process(["scan", "--jobs", "1", "--db", db, folder.path])
            p.standardOutput = try FileHandle(forWritingTo: out)
            p.standardError = try FileHandle(forWritingTo: err)
            return p
        }
        for p in processes { try p.run() }
        for p in processes { p.waitUntilExit() }
        for (p, err) in zip(processes, errors) {
            // Both open the new store at the same moment; neither may give up on the other's lock.
            #expect(p.terminationStatus == 0, "\((try? String(contentsOf: err, encoding: .utf8)) ?? "")")
        }
        let c = try Self.counts(db)
        #expect(c.sheets == sheets, "\(c)")
        Self.expectWhole(c)
        // Between them the two stored each sheet once.
        let stored = try outputs.map { url -> Int in
            let text = try String(contentsOf: url, encoding: .utf8)
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("stored in") })
            return Int(line.split(separator: ": ")[1].split(separator: " ")[0]) ?? -1
        }
        #expect(stored.reduce(0, +) == sheets, "\(stored)")
    }
}
