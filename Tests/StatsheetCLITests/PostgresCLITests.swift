import Foundation
import SheetStore
import StoreTestSupport
import Testing

/// `scan`, `store copy`, `games` and `sheets` against a real PostgreSQL server, through the built
/// binary: two stations at once, a station killed, a server that goes away, a store moved from
/// SQLite, and no password in any output.
@Suite(.enabled(if: TestPostgres.enabled, Comment(rawValue: TestPostgres.disabledReason)))
struct PostgresCLITests {
    typealias Counts = StoreCLITests.Counts

    /// Copies of bundled samples `range` (by sorted name) into a new folder.
    static func samples(_ range: Range<Int>, into folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let images = try FileManager.default.contentsOfDirectory(atPath: StoreCLITests.samples.path).filter { !$0.hasSuffix(".json") }.sorted()
        for name in images[range] {
            try FileManager.default.copyItem(at: StoreCLITests.samples.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
    }

    static func output(_ p: Process) -> Pipe {
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        return pipe
    }

    /// Two `scan`s at once on folders that share three sheets, into one database: every sheet and
    /// game once — the same store, count for count, as one SQLite scan of all nine.
    @Test func twoScansOfOverlappingFoldersStoreEverySheetAndGameOnce() async throws {
        let root = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let (a, b) = (root.appendingPathComponent("a"), root.appendingPathComponent("b"))
        try Self.samples(0..<6, into: a)
        try Self.samples(3..<9, into: b)
        try await TestPostgres.withDatabase { url in
            let processes = [a, b].map { StoreCLITests.process(["scan", "--jobs", "1", "--db", url, $0.path]) }
            let pipes = processes.map(Self.output)
            for p in processes { try p.run() }
            let texts = pipes.map { String(decoding: $0.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
            for p in processes { p.waitUntilExit() }
            for (p, text) in zip(processes, texts) { #expect(p.terminationStatus == 0, "\(text)") }
            let c = try await StoreCLITests.counts(postgres: url)
            #expect(c.sheets == 9, "\(c)")
            StoreCLITests.expectWhole(c)
            let stored = texts.map { text in
                text.split(separator: "\n").first { $0.hasPrefix("stored in postgres://statsheet:***@") }
                    .flatMap { Int($0.split(separator: ": ")[1].split(separator: " ")[0]) } ?? -1
            }
            #expect(stored.reduce(0, +) == 9, "\(texts)")

            let sqlite = root.appendingPathComponent("all.sqlite").path
            #expect(try CLITests.run(["scan", "--jobs", "2", "--db", sqlite, a.path, b.path]).status == 0)
            #expect(try StoreCLITests.counts(sqlite) == c, "the same game logs, approvals and numbers as one scan into SQLite")
        }
    }

    /// `kill -9` at random moments, then a rerun: every sheet stored exactly once, none partly.
    @Test func sigkillMidBatchThenRerunStoresEverySheetOnce() async throws {
        let folder = try StoreCLITests.sampleFolder(8)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestPostgres.withDatabase { url in
            try await StoreCLITests.killScansThenRerun(db: url, folder: folder, sheets: 8, runs: 4, window: 0.3...2.0) {
                try await StoreCLITests.counts(postgres: url)
            }
        }
    }

    /// A server of its own, stopped at once (`pg_ctl stop -m immediate`) while a scan stores into
    /// it: the scan stops with one clear error and a non-zero status, every sheet stored is whole,
    /// and once the server is back the same command finishes the batch.
    @Test func aServerThatGoesAwayStopsTheBatchCleanlyAndARerunFinishes() async throws {
        let sheets = 24
        let folder = try StoreCLITests.sampleFolder(sheets)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try PrivateServer()
        defer { server.stop() }
        let url = try server.start()
        let password = try #require(URLComponents(string: url)?.password)

        let p = StoreCLITests.process(["scan", "--jobs", "1", "--db", url, folder.path])
        let pipe = Self.output(p)
        try p.run()
        var stored = 0
        let deadline = Date().addingTimeInterval(120)
        while p.isRunning && Date() < deadline {
            stored = (try? TestPostgres.countBlocking("SELECT COUNT(*) FROM sheets", in: url)) ?? 0
            if stored >= 2 { break }
            usleep(20_000)
        }
        try #require(p.isRunning, "the scan finished before the server could be stopped")
        try server.kill()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus != 0, "\(text)")
        #expect(text.contains("cannot use the PostgreSQL store postgres://statsheet:***@127.0.0.1:\(server.port)/postgres"), "\(text)")
        #expect(text.contains("check that the server is running"), "\(text)")
        #expect(text.contains("scan stopped:"), "\(text)")
        #expect(!text.contains(password), "\(text)")

        _ = try server.start()
        let kept = try await StoreCLITests.counts(postgres: url)
        StoreCLITests.expectWhole(kept)
        #expect(kept.sheets >= stored && kept.sheets < sheets, "\(kept)")
        let rerun = try CLITests.run(["scan", "--jobs", "2", "--db", url, folder.path])
        #expect(rerun.status == 0, "\(rerun.stdout)\(rerun.stderr)")
        #expect(rerun.stdout.contains("\(kept.sheets) already in the store"), "\(rerun.stdout)")
        let c = try await StoreCLITests.counts(postgres: url)
        #expect(c.sheets == sheets, "\(c)")
        StoreCLITests.expectWhole(c)
    }

    /// SQLite to PostgreSQL twice: one copy of every sheet, reading, correction, game log and
    /// failure; and back to a new SQLite file, the same again.
    @Test func storeCopyTwiceLeavesOneCopyOfEverything() async throws {
        let folder = try StoreCLITests.sampleFolder(4)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("not a picture".utf8).write(to: folder.appendingPathComponent("sheet-999.png"))
        let sqlite = folder.appendingPathComponent("station.sqlite").path
        #expect(try CLITests.run(["scan", "--db", sqlite, folder.path]).status == 1, "the broken file fails")
        let station = try SQLiteSheetStore(path: sqlite)
        let first = try #require(try await station.sheets(status: nil).first)
        _ = try await station.addCorrection(NewCorrection(sheetID: first.id, field: "q1.shots", newValue: .integer(3), reviewer: "coach",
                                                          at: Date(timeIntervalSince1970: 1_790_000_000), note: "recount"))
        let source = try StoreCLITests.counts(sqlite)
        #expect(source.sheets == 4 && source.failures == 1, "\(source)")

        try await TestPostgres.withDatabase { url in
            let once = try CLITests.run(["store", "copy", "--from", sqlite, "--to", url])
            #expect(once.status == 0, "\(once.stderr)")
            let names = try await station.knownNames(kind: nil).count
            #expect(names > 0, "the clean sheets' names were learnt")
            #expect(once.stdout.contains("copied 4 sheets (0 already there), 1 failure and \(names) known names from \(sqlite) to postgres://statsheet:***@"),
                    "\(once.stdout)")
            let twice = try CLITests.run(["store", "copy", "--from", sqlite, "--to", url])
            #expect(twice.stdout.contains("copied 0 sheets (4 already there), ") && twice.stdout.contains(" and 0 known names from "), "\(twice.stdout)")
            #expect(try await TestPostgres.count("SELECT COUNT(*) FROM known_names", in: url) == names)
            #expect(try await StoreCLITests.counts(postgres: url) == source)
            #expect(try await TestPostgres.count("SELECT COUNT(*) FROM corrections", in: url) == 1)
            #expect(try await TestPostgres.count("SELECT COUNT(*) FROM scan_failures WHERE attempts = 1", in: url) == 1)

            let back = folder.appendingPathComponent("back.sqlite").path
            #expect(try CLITests.run(["store", "copy", "--from", url, "--to", back]).status == 0)
            #expect(try StoreCLITests.counts(back) == source)
            let games = try CLITests.run(["games", "--db", url, "--format", "csv"])
            #expect(games.stdout == (try CLITests.run(["games", "--db", sqlite, "--format", "csv"])).stdout)
        }
    }

    /// Every command, failing or not, with the password in the URL (or in STATSHEET_DB): the
    /// password appears in no output, and a failure says which host and what to check.
    @Test func noPasswordInAnyOutput() async throws {
        let folder = try StoreCLITests.sampleFolder(1)
        defer { try? FileManager.default.removeItem(at: folder) }
        let password = try TestPostgres.password()
        let wrong = "Wr0ng-" + password
        try await TestPostgres.withDatabase { url in
            let failing: [(arguments: [String], says: String)] = [
                (["scan", "--db", try TestPostgres.url(database: "postgres", password: wrong), folder.path], "password authentication failed"),
                (["scan", "--db", try TestPostgres.url(database: "no_such_db"), folder.path], "does not exist"),
                (["scan", "--db", try TestPostgres.url(database: "postgres", port: 1), folder.path], "connection refused"),
                (["games", "--db", url.replacingOccurrences(of: "127.0.0.1", with: "no-such-host.invalid")], "no-such-host.invalid"),
                (["sheets", "--db", url + "&sslmode=sometimes"], "sslmode must be one of"),
                (["scan", "--db", url.replacingOccurrences(of: "sslmode=disable", with: "sslmode=require"), folder.path], "TLS"),
                (["store", "copy", "--from", url, "--to", try TestPostgres.url(database: "postgres", password: wrong)], "password authentication failed"),
            ]
            for (arguments, says) in failing {
                let r = try CLITests.run(arguments)
                let text = r.stdout + r.stderr
                #expect(r.status != 0, "\(arguments[0]): \(text)")
                #expect(text.contains(says), "\(arguments[0]): \(text)")
                #expect(!text.contains(password) && !text.contains(wrong), "\(arguments[0]): \(text)")
            }
            var working = [
                try CLITests.run(["scan", "--verbose", "--db", url, folder.path]),
                try CLITests.run(["games", "--db", url]),
                try CLITests.run(["sheets", "--db", url, "--json"]),
            ]
            let env = StoreCLITests.process(["scan", "--reread", folder.path])
            env.environment = ProcessInfo.processInfo.environment.merging(["STATSHEET_DB": url]) { _, new in new }
            let pipe = Self.output(env)
            try env.run()
            let envText = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            env.waitUntilExit()
            working.append(CLITests.Run(status: env.terminationStatus, stdout: envText, stderr: ""))
            for r in working {
                #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
                #expect(!(r.stdout + r.stderr).contains(password), "\(r.stdout)\(r.stderr)")
            }
            #expect(working[0].stdout.contains("stored in postgres://statsheet:***@127.0.0.1"), "\(working[0].stdout)")
            #expect(envText.contains("1 read again"), "\(envText)")
        }
    }
}

/// A PostgreSQL server for one test, which it may stop and start again: `Tools/pg-test-server.sh`
/// on a port and folder of its own.
struct PrivateServer {
    let port = Int.random(in: 56000..<57000)
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("statsheet-pg-private-" + UUID().uuidString).path

    init() throws {}

    @discardableResult
    func run(_ command: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = [CLITests.root.appendingPathComponent("Tools/pg-test-server.sh").path, command]
        p.environment = ProcessInfo.processInfo.environment.merging(["PG_TEST_PORT": "\(port)", "PG_TEST_STATE": state]) { _, new in new }
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard Self.exitStatus(p) == 0 else { throw RuntimeFailure("Tools/pg-test-server.sh \(command) failed") }
        return text
    }

    /// Foundation's `Process` can miss a child's exit when several are started at once (seen here: the
    /// script a zombie and `waitUntilExit` waiting for ever), so the child is also reaped here directly.
    static func exitStatus(_ p: Process) -> Int32 {
        while p.isRunning {
            var status: Int32 = 0
            if waitpid(p.processIdentifier, &status, WNOHANG) == p.processIdentifier { return (status >> 8) & 0xff }
            usleep(20_000)
        }
        return p.terminationStatus
    }

    /// Starts (or restarts) the server; its URL.
    func start() throws -> String {
        let line = try run("start")
        guard let open = line.firstIndex(of: "'"), let close = line.lastIndex(of: "'"), open < close else { throw RuntimeFailure("no URL from Tools/pg-test-server.sh start: \(line)") }
        return String(line[line.index(after: open)..<close])
    }

    func kill() throws { try run("kill") }
    func stop() { _ = try? run("stop") }
}

struct RuntimeFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
