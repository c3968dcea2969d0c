import Foundation
import Logging
import PostgresNIO
import SheetModel
@testable import SheetStore
import StoreTestSupport
import Testing

/// Runs the conformance suite on a real PostgreSQL server, one new database per case.
@Suite(.enabled(if: TestPostgres.enabled, Comment(rawValue: TestPostgres.disabledReason)))
struct PostgresConformanceTests {
    @Test(arguments: StoreConformance.cases)
    func conformance(_ testCase: StoreConformance.Case) async throws {
        try await TemporaryDatabase.with { store in try await testCase.run(store) }
    }

    @Test(arguments: StoreConformance.copyCases)
    func copy(_ testCase: StoreConformance.CopyCase) async throws {
        try await TemporaryDatabase.with { source in try await TemporaryDatabase.with { target in try await testCase.run(source, target) } }
    }
}

enum TemporaryDatabase {
    /// A store on a new database, dropped afterwards.
    static func with(_ body: (PostgresSheetStore) async throws -> Void) async throws {
        try await TestPostgres.withDatabase { url in
            let store = try await PostgresSheetStore.open(url: url)
            do {
                try await body(store)
            } catch {
                await store.close()
                throw error
            }
            await store.close()
        }
    }
}

@Suite(.enabled(if: TestPostgres.enabled, Comment(rawValue: TestPostgres.disabledReason)))
struct PostgresStoreTests {
    /// Stores opened at once on a new database (as stations starting together do): the migrations
    /// run once, recorded once, and every store works.
    @Test func concurrentOpensMigrateOnce() async throws {
        try await TestPostgres.withDatabase { url in
            let stores = try await withThrowingTaskGroup(of: PostgresSheetStore.self) { group in
                for _ in 0..<6 { group.addTask { try await PostgresSheetStore.open(url: url) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(try await TestPostgres.count("SELECT COUNT(*) FROM statsheet_migrations", in: url)
                    == Schema.migrations(.postgres).count)
            for store in stores {
                #expect(try await store.sheets(status: nil).isEmpty)
                await store.close()
            }
            // Reopening runs nothing again and keeps what is stored.
            let store = try await PostgresSheetStore.open(url: url)
            _ = try await store.record(StoreConformance.sheet(hash: "a"), policy: ApprovalPolicy(), replace: false)
            await store.close()
            let again = try await PostgresSheetStore.open(url: url)
            #expect(try await again.goalieGameLogs(GameLogFilter()).count == 1)
            await again.close()
        }
    }

    /// A measurement reads a store without changing it (`statsheet eval --db`): a database with no statsheet schema
    /// is refused, not given one; a store up to date is read, and the server refuses every write through it.
    @Test func aStoreOpenedToReadIsNeverMigratedNorWritten() async throws {
        try await TestPostgres.withDatabase { url in
            let location = try PostgresLocation(url: url)
            await #expect(throws: StoreError.olderSchema(store: location.redacted, version: nil, current: "v9")) {
                try await PostgresSheetStore.open(location, readingOnly: true)
            }
            #expect(try await TestPostgres.count("SELECT COUNT(*) FROM pg_tables WHERE tablename = 'statsheet_migrations'", in: url) == 0)
            let writer = try await PostgresSheetStore.open(url: url)
            _ = try await writer.record(StoreConformance.sheet(hash: "a"), policy: ApprovalPolicy(), replace: false)
            await writer.close()
            let reader = try await PostgresSheetStore.open(location, readingOnly: true)
            #expect(try await reader.sheets(status: nil).count == 1)
            await #expect(throws: (any Error).self) {
                _ = try await reader.record(StoreConformance.sheet(hash: "b"), policy: ApprovalPolicy(), replace: false)
            }
            await reader.close()
            #expect(try await TestPostgres.count("SELECT COUNT(*) FROM sheets", in: url) == 1)
        }
    }

    /// A database as statsheet left it at schema v6 opens at v7 with its sheets, ids and game logs, at no page
    /// (`EarlierStore`): the uniqueness moves from `sha256` to (`sha256`, `page`) in place.
    @Test func aStoreAtV6MigratesToPages() async throws {
        try await TestPostgres.withDatabase { url in
            let logger = Logger(label: "statsheet.test")
            let connection = try await PostgresConnection.connect(configuration: try PostgresLocation(url: url).connectionConfiguration(),
                                                                  id: 9, logger: logger)
            let session = PostgresSession(connection: connection, logger: logger)
            try await PostgresSheetStore.migrate(session, logger: logger, through: "v6")
            for sql in EarlierStore.v6Rows { try await session.execute(sql) }
            try await connection.close()
            let store = try await PostgresSheetStore.open(url: url)
            try await EarlierStore.checkV6(store)
            await store.close()
            #expect(try await TestPostgres.count("SELECT COUNT(*) FROM pg_constraint WHERE conname = 'sheets_sha256_key'", in: url) == 0)
        }
    }

    /// Stations store the same file, and each its own photo of the same game, at the same moment
    /// (each game starts at one scheduled instant on every station), game after game: each file is
    /// stored once, and of each game's logs exactly one is approved, the others wait as its
    /// probable duplicates.
    /// A database made before known names (schema v4) learns, when a station opens it, the names of the
    /// game logs already approved in it, and of no other.
    @Test func aDatabaseBeforeKnownNamesLearnsItsApprovedGameLogsNamesWhenOpened() async throws {
        try await TestPostgres.withDatabase { url in
            let store = try await PostgresSheetStore.open(url: url)
            _ = try await store.record(StoreConformance.sheet(hash: "a", athlete: "Zoë Fernández", opponent: "O'Neill Prep"),
                                       policy: ApprovalPolicy(), replace: false)
            _ = try await store.record(StoreConformance.sheet(hash: "b", athlete: "Sam Okafor", status: .needsReview), policy: ApprovalPolicy(), replace: false)
            try await store.write { session in
                try await session.execute("DROP TABLE known_names")
                try await session.execute("DELETE FROM statsheet_migrations WHERE name = 'v5'")
            }
            await store.close()
            let migrated = try await PostgresSheetStore.open(url: url)
            #expect(try await migrated.knownNames(kind: nil).map(\.name) == [KnownName(kind: .athlete, name: "Zoë Fernández"),
                                                                              KnownName(kind: .opponent, name: "O'Neill Prep")])
            #expect(try await migrated.knownNames(kind: nil).allSatisfy { $0.source == .sheet })
            await migrated.close()
        }
    }

    /// Two stations importing the same roster at once, and approving sheets that name it: each name is
    /// stored once, and neither transaction fails.
    @Test func stationsAddingTheSameNamesAtOnceStoreEachOnce() async throws {
        try await TestPostgres.withDatabase { url in
            let names = (1...40).map { KnownName(kind: .player, name: "Player \($0)", number: "\($0)", team: "Granite Bay") }
                + [KnownName(kind: .opponent, name: "St. Mary's"), KnownName(kind: .athlete, name: "Zoë Fernández")]
            let stations = [try await PostgresSheetStore.open(url: url), try await PostgresSheetStore.open(url: url)]
            let added = try await withThrowingTaskGroup(of: Int.self) { group in
                for (i, station) in stations.enumerated() {
                    // Each station in its own order: the store inserts in one order whatever it is given.
                    let mine = StoreConformance.imported(i == 0 ? names : names.reversed())
                    group.addTask { try await station.addKnownNames(mine) }
                }
                return try await group.reduce(0, +)
            }
            #expect(added == names.count)
            #expect(try await stations[0].knownNames(kind: nil).count == names.count)
            for station in stations { await station.close() }
        }
    }

    @Test func stationsRacingStoreEachSheetAndGameOnce() async throws {
        try await TestPostgres.withDatabase { url in
            var stations: [PostgresSheetStore] = []
            for _ in 0..<4 { stations.append(try await PostgresSheetStore.open(url: url)) }
            let games = 10
            let start = ContinuousClock.now + .milliseconds(300)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (n, station) in stations.enumerated() {
                    group.addTask {
                        for game in 0..<games {
                            try await Task.sleep(until: start + .milliseconds(250 * game), clock: .continuous)
                            let date = String(format: "2026-05-%02d", game + 1)
                            _ = try await station.record(StoreConformance.sheet(hash: String(format: "%02x%x", game, 10 + n), date: date),
                                                         policy: ApprovalPolicy(), replace: false)
                            _ = try await station.record(StoreConformance.sheet(hash: String(format: "%02x", game), date: date),
                                                         policy: ApprovalPolicy(), replace: false)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let photos = stations.count + 1
            #expect(try await TestPostgres.count("SELECT COUNT(*) FROM sheets", in: url) == games * photos)
            #expect(try await TestPostgres.count("SELECT COUNT(*) FROM game_logs", in: url) == games * photos)
            #expect(try await TestPostgres.count("SELECT COUNT(*) FROM game_logs WHERE approved_at IS NOT NULL", in: url) == games)
            #expect(try await TestPostgres.count("SELECT COUNT(*) FROM game_logs WHERE duplicate_of IS NOT NULL", in: url) == games * (photos - 1))
            #expect(try await TestPostgres.count("SELECT COUNT(*) FROM field_readings", in: url) == games * photos * StoreConformance.template.fields.count)
            for station in stations { await station.close() }
        }
    }

    /// A copy is the same sheet: readings, cell images, corrections with their undo marks, review
    /// decisions, the revision, approvals, the duplicate link by content hash and a box score's player lines.
    @Test func aCopiedSheetIsTheSameSheet() async throws {
        try await TemporaryDatabase.with { source in
            try await TemporaryStore.with { target in
                let first = StoreConformance.sheetID(try await source.record(StoreConformance.sheet(hash: "a"), policy: ApprovalPolicy(), replace: false))
                var reviewed = StoreConformance.sheet(hash: "b", status: .needsReview)
                reviewed.cellImages = ["q2.saves": Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2]), "q2.shots": Data([7])]
                let second = StoreConformance.sheetID(try await source.record(reviewed, policy: ApprovalPolicy(), replace: false))
                let at = Date(timeIntervalSince1970: 1_790_000_500)
                for value in [10, 12] {
                    _ = try await source.addCorrection(NewCorrection(sheetID: second, field: "q2.saves", newValue: .integer(value), reviewer: "coach",
                                                                     at: at, note: "smudge"))
                }
                _ = try await source.undoLastCorrection(UndoRequest(sheetID: second, expectedRevision: nil, reviewer: "ann", at: at))
                try await source.rejectSheet(SheetRejection(sheetID: second, expectedRevision: nil, reviewer: "ann", at: at, reason: "blurred"))
                let box = StoreConformance.sheetID(try await source.record(StoreConformance.boxScore(hash: "c"), policy: ApprovalPolicy(), replace: false))
                for id in [first, second, box] {
                    let whole = try await source.storedSheet(id: id)
                    #expect(try await target.insert(whole))
                    #expect(try await !target.insert(whole), "the second insert of the same hash changes nothing")
                    let copyID = try #require(try await target.storedSheets()[whole.key]?.id)
                    #expect(Self.withoutIDs(try await target.storedSheet(id: copyID)) == Self.withoutIDs(whole))
                }
                let copied = try await source.storedSheet(id: second)
                #expect(copied.corrections.count == 2 && copied.corrections.last?.undoneBy == "ann", "\(copied.corrections)")
                #expect(copied.decisions.map(\.kind) == [.rejected])
                #expect(copied.cellImages.count == 2)
                #expect(copied.revision == 4)
                #expect(try await target.boxScoreLines(GameLogFilter()) == (try await source.boxScoreLines(GameLogFilter())).map {
                    var line = $0; line.gameLogID = 3; return line
                }, "the box score's player lines came along")
                let logs = try await target.gameLogs(sheetID: nil).filter { $0.role == "goalie" }
                #expect(logs.count == 2)
                #expect(logs.last?.duplicateOf == logs.first?.id, "the duplicate link points at the copy of the first game log")
            }
        }
    }

    /// A sheet's ids are its store's own: everything else must survive a copy.
    static func withoutIDs(_ sheet: StoredSheet) -> StoredSheet {
        var sheet = sheet
        sheet.corrections = sheet.corrections.map { var c = $0; c.id = 0; c.sheetID = 0; return c }
        sheet.decisions = sheet.decisions.map { var d = $0; d.id = 0; d.sheetID = 0; return d }
        return sheet
    }

    /// Two terminals write the same sheet at the same moment, each from the revision it loaded, ten
    /// times over: each time one write is stored and the other is refused with `ReviewConflict`;
    /// the refused reviewer reloads, sees the other's change and writes again. No change is lost.
    @Test func twoTerminalsReviewingOneSheetLoseNoChange() async throws {
        try await TestPostgres.withDatabase { url in
            let (ann, bob) = (try await PostgresSheetStore.open(url: url), try await PostgresSheetStore.open(url: url))
            let id = StoreConformance.sheetID(try await ann.record(StoreConformance.sheet(hash: "c", status: .needsReview),
                                                                   policy: ApprovalPolicy(), replace: false))
            let at = Date(timeIntervalSince1970: 1_790_000_700)
            var conflicts = 0
            for round in 1...10 {
                let seen = try await ann.sheetReview(sheetID: id).revision
                async let annWrote = Self.conflict { _ = try await ann.addCorrection(NewCorrection(
                    sheetID: id, field: "q1.shots", newValue: .integer(round), reviewer: "ann", at: at, expectedRevision: seen)) }
                async let bobWrote = Self.conflict { _ = try await bob.addCorrection(NewCorrection(
                    sheetID: id, field: "q1.saves", newValue: .integer(round), reviewer: "bob", at: at, expectedRevision: seen)) }
                let (annConflict, bobConflict) = try await (annWrote, bobWrote)
                #expect(annConflict != bobConflict, "round \(round): exactly one of two writes on revision \(seen) is refused")
                guard let refused = annConflict ?? bobConflict else { continue }
                conflicts += 1
                #expect(refused.expectedRevision == seen && refused.actualRevision == seen + 1)
                // The refused one reloads: the other's change is there; then its own goes in.
                let reloaded = try await (annConflict == nil ? bob : ann).sheetReview(sheetID: id)
                #expect(reloaded.values[annConflict == nil ? "q1.shots" : "q1.saves"] == .integer(round))
                _ = try await (annConflict == nil ? bob : ann).addCorrection(NewCorrection(
                    sheetID: id, field: annConflict == nil ? "q1.saves" : "q1.shots", newValue: .integer(round),
                    reviewer: annConflict == nil ? "bob" : "ann", at: at, expectedRevision: reloaded.revision))
            }
            let final = try await bob.sheetReview(sheetID: id)
            #expect(conflicts == 10)
            #expect(final.corrections.count == 20)
            #expect(final.values["q1.shots"] == .integer(10) && final.values["q1.saves"] == .integer(10))
            await ann.close()
            await bob.close()
        }
    }

    /// The `ReviewConflict` a write threw, nil when it was stored.
    static func conflict(_ write: () async throws -> Void) async throws -> ReviewConflict? {
        do {
            try await write()
            return nil
        } catch let conflict as ReviewConflict {
            return conflict
        }
    }
}

/// Errors name the server and what to check, and never the password; no server needed beyond the test one.
@Suite struct PostgresLocationTests {
    @Test func urlsParseAndRedact() throws {
        let location = try PostgresLocation(url: "postgresql://coach:s3cret%21@db.club.example:6543/stats?sslmode=require")
        #expect(location.host == "db.club.example")
        #expect(location.port == 6543)
        #expect(location.user == "coach")
        #expect(location.password == "s3cret!")
        #expect(location.database == "stats")
        #expect(location.sslMode == .require)
        #expect(location.redacted == "postgres://coach:***@db.club.example:6543/stats?sslmode=require")
        let plain = try PostgresLocation(url: "postgres://coach@localhost/stats")
        #expect(plain.port == 5432)
        #expect(plain.sslMode == .prefer)
        #expect(plain.redacted == "postgres://coach@localhost:5432/stats")
        #expect(try PostgresLocation(url: "postgres://coach:pw@[::1]:5433/x").redacted == "postgres://coach:***@[::1]:5433/x")
    }

    @Test(arguments: ["postgres://u:hunter2@/db", "postgres://u:hunter2@h/db?sslmode=sometimes", "postgres://u:hunter2@h/db?password=x"])
    func badURLsAreRefusedWithoutEchoingThem(_ url: String) {
        do {
            _ = try PostgresLocation(url: url)
            Issue.record("accepted \(url)")
        } catch {
            #expect(!"\(error)".contains("hunter2"), "\(error)")
        }
    }

    @Test(.enabled(if: TestPostgres.enabled, Comment(rawValue: TestPostgres.disabledReason)))
    func connectionFailuresSayWhatToCheckAndHideThePassword() async throws {
        let password = try TestPostgres.password()
        let cases: [(url: String, says: String, check: String)] = [
            (try TestPostgres.url(database: "postgres", password: "wrong-Pa55word"), "password authentication failed", "user name and password"),
            (try TestPostgres.url(database: "no_such_database_here"), "does not exist", "database name"),
            (try TestPostgres.url(database: "postgres", port: 1), "connection refused", "server is running"),
        ]
        for (url, says, check) in cases {
            do {
                let store = try await PostgresSheetStore.open(url: url)
                await store.close()
                Issue.record("opened \(StoreLocator.displayName(url))")
            } catch {
                let text = "\(error)"
                #expect(error is StoreUnavailableError, "\(text)")
                #expect(text.lowercased().contains(says), "\(text)")
                #expect(text.contains("check") && text.contains(check), "\(text)")
                #expect(text.contains("127.0.0.1"), "\(text)")
                #expect(!text.contains(password) && !text.contains("wrong-Pa55word"), "\(text)")
                #expect(!text.contains("\n"), "one line: \(text)")
            }
        }
    }
}
