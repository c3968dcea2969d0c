import Foundation
import GRDB
import SheetModel
@testable import SheetStore
import Testing

/// A store written before doubts were typed (`Fixtures/store-v3.sqlite`: two hand-filled sheets scanned by
/// statsheet at schema v3, cell images removed to keep it small) opens, its notes typed once by the
/// migration, and reviews.
@Suite struct EarlierStoreTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/store-v3.sqlite")

    @Test func aStoreWrittenBeforeTypedDoubtsOpensWithThemTypedAndReviews() async throws {
        let dir = try TemporaryStore.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("store.sqlite").path
        try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: path)
        let store = try SQLiteSheetStore(path: path)
        let sheets = try await store.sheets(status: nil)
        #expect(sheets.count == 2)
        let soccer = try #require(sheets.first { $0.templateID == "soccer-keeper" })
        let readings = Dictionary(uniqueKeysWithValues: try await store.readings(sheetID: soccer.id).map { ($0.field, $0.reading) })
        // "in failing rule h2.balance", "confidence 69 with the rule broken, 100 alone", …: typed, and the ink's
        // own confidence in its column.
        let shots = try #require(readings["h2.shots"])
        #expect(shots.doubts.contains(.inFailingRule("h2.balance")) && shots.inkConfidence == 100, "\(shots.doubts)")
        #expect(shots.flagCause(line: 70) == .sureButDoubted)
        #expect(readings["total.goals"]?.doubts == [.underTheLine(70), .smallMark])
        #expect(readings["et.shots"]?.doubts.first == .strayMarks(count: 1))
        // A sentence no type stands for is kept as it was written.
        #expect(readings["h2.saves"]?.doubts.contains(.earlierNote("in failing rule h2.balance, which h2.shots alone explains")) == true)
        // Reviewed as any sheet: corrected and approved.
        let review = try await store.sheetReview(sheetID: soccer.id)
        #expect(review.fields.contains { $0.field == "h2.shots" })
        _ = try await store.addCorrection(NewCorrection(sheetID: soccer.id, field: "h2.shots", newValue: .integer(17), reviewer: "ann", at: Date()))
        #expect(try await store.corrections(sheetID: soccer.id).map(\.newValue) == [.integer(17)])
        // Reopened: the migration has run once and does not run again.
        let again = try SQLiteSheetStore(path: path)
        #expect(try await again.readings(sheetID: soccer.id).first { $0.field == "h2.shots" }?.reading.doubts == shots.doubts)
    }

    @Test func eachSentenceAnEarlierStatsheetWroteBecomesItsType() {
        let converted = EarlierNotes.convert([
            "the digits alone read 1 (confidence 62); the sums make 7 likelier", "confidence 69 is under 70",
            "a crossed-out or unreadable mark among the digits", "in failing rule q2.balance", "3 stray marks ignored", "something else",
        ])
        #expect(converted.inkValue == .integer(1) && converted.inkConfidence == 62)
        #expect(converted.doubts == [.underTheLine(70), .unreadableMark, .inFailingRule("q2.balance"), .strayMarks(count: 3),
                                     .earlierNote("something else")])
        #expect(EarlierNotes.convert(["confidence 98 with the sums, 90 alone"]).inkConfidence == 90)
        #expect(EarlierNotes.convert(["the digits alone read empty (confidence 40); filled in from the sheet's suggestion: 3"]).inkValue == .empty)
    }

    /// The migration matches frozen copies of the sentences stores 1–3 hold, never today's wording: the
    /// handwritten date's sentence has been reworded since and still types, and no sentence is read through
    /// `ReadingDoubt.words`, so rewording any message leaves an old store's notes typed.
    @Test func earlierSentencesAreMatchedAsTheyWereWritten() {
        let date = "a handwritten date under 80% sure is right about 19 times in 20"
        #expect(ReadingDoubt.uncheckedHandwriting(.date).words != date)
        #expect(EarlierNotes.convert([date]).doubts == [.uncheckedHandwriting(.date)])
        for (sentence, doubt) in EarlierNotes.sentences {
            #expect(EarlierNotes.convert([sentence]).doubts == [doubt], "\(sentence)")
        }
        // Today's words for a doubt stores 1–3 never held are not an earlier sentence: they stay a note.
        let today = ReadingDoubt.boxMisplaced.words
        #expect(EarlierNotes.convert([today]).doubts == [.earlierNote(today)])
    }

    /// A measurement reads a store without changing it (`statsheet eval --db`): one written by an earlier statsheet is
    /// refused, saying its schema and the command that brings it up to date, and its file is left byte for byte as
    /// it was, no migration run; brought up to date, it is read, and still nothing can be written through it.
    @Test func aStoreOpenedToReadIsNeverMigratedNorWritten() async throws {
        let dir = try TemporaryStore.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("store.sqlite").path
        try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: StoreError.olderSchema(store: path, version: "v3", current: "v9")) { try SQLiteSheetStore(readingOnly: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "not migrated")
        #expect(String(describing: StoreError.olderSchema(store: path, version: "v3", current: "v9")).contains("statsheet store migrate --db \(path)"))

        _ = try SQLiteSheetStore(path: path)
        let current = try Data(contentsOf: URL(fileURLWithPath: path))
        let store = try SQLiteSheetStore(readingOnly: path)
        #expect(try await store.sheets(status: nil).count == 2)
        _ = try await store.seasonGames()
        await #expect(throws: StoreError.self) {
            try await store.addKnownNames([StoredKnownName(name: KnownName(kind: .athlete, name: "Zoë Fernández"), source: .imported, addedAt: Date())])
        }
        #expect(try await store.knownNames(kind: nil).isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == current)
        #expect(throws: StoreError.self) { try SQLiteSheetStore(readingOnly: dir.appendingPathComponent("none.sqlite").path) }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("none.sqlite").path))
    }

    /// Pages (v7) rebuild SQLite's `sheets` and `scan_failures`: a store from before keeps every sheet under its id,
    /// at no page, with its readings and game logs, and every foreign key still holds.
    @Test func aStoreWrittenBeforePagesKeepsItsSheetsIdsAndGameLogs() async throws {
        let dir = try TemporaryStore.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("store.sqlite").path
        try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: path)
        let before = try await DatabaseQueue(path: path).read { db in
            (sheets: try Row.fetchAll(db, sql: "SELECT id, sha256, path FROM sheets ORDER BY id").map {
                "\($0["id"] as Int64) \($0["sha256"] as String) \($0["path"] as String)"
             },
             logs: try Row.fetchAll(db, sql: "SELECT id, sheet_id, athlete FROM game_logs ORDER BY id").map {
                "\($0["id"] as Int64) \($0["sheet_id"] as Int64) \(($0["athlete"] as String?) ?? "")"
             },
             readings: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM field_readings") ?? 0)
        }
        #expect(before.sheets.count == 2 && before.logs.count == 2)

        let store = try SQLiteSheetStore(path: path)
        let sheets = try await store.sheets(status: nil)
        #expect(sheets.map { "\($0.id) \($0.sha256) \($0.path)" } == before.sheets)
        #expect(sheets.allSatisfy { $0.page == nil })
        #expect(Set(try await store.storedSheets().keys) == Set(sheets.map { SheetKey(sha256: $0.sha256) }))
        #expect(try await store.gameLogs(sheetID: nil).map { "\($0.id) \($0.sheetID) \($0.athlete ?? "")" } == before.logs)
        var readings = 0
        for sheet in sheets { readings += try await store.readings(sheetID: sheet.id).count }
        #expect(readings == before.readings)
        // A game log approved now shows its sheet's path, no page.
        let log = try #require(try await store.gameLogs(sheetID: sheets[1].id).first)
        try await store.approveGameLog(id: log.id, by: "coach", at: Date(timeIntervalSince1970: 1_790_000_000))
        let shown = try await store.goalieGameLogs(GameLogFilter())
        #expect(shown.map(\.sheetPath) == [sheets[1].path] && shown.map(\.sheetPage) == [nil])
        // The same bytes as a page of a document are another sheet; as the same one-image file, the one stored.
        let stored = try await store.record(StoreConformance.sheet(hash: "x", path: sheets[1].path), policy: ApprovalPolicy(), replace: false)
        #expect(StoreConformance.sheetID(stored) != sheets[1].id)
        let (broken, ddl) = try await store.write { session in
            (try await session.rows("PRAGMA foreign_key_check"), try await session.rows("SELECT sql FROM sqlite_master WHERE name = 'sheets'").first?.text("sql") ?? "")
        }
        #expect(broken.isEmpty)
        #expect(ddl.contains("UNIQUE (sha256, page)") && !ddl.contains("sha256 TEXT NOT NULL UNIQUE"), "\(ddl)")
    }

    static let v6Fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/store-v6.sqlite")

    /// A store statsheet wrote at schema v6 (`Fixtures/store-v6.sqlite`: `scan` of a printed and a handwritten
    /// lacrosse sheet, a printed box score and an image with no sheet; three corrections by `review --apply`; cell
    /// images removed to keep it small) opens at v7: both views give every row they gave, column for column, and
    /// `sheet_page` null; ids, corrections, labelled digits, known names and the failure are as they were.
    @Test func aStoreStatsheetWroteAtV6KeepsEveryViewRowAndId() async throws {
        let dir = try TemporaryStore.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("store.sqlite").path
        try FileManager.default.copyItem(atPath: Self.v6Fixture.path, toPath: path)
        let queries = ["SELECT * FROM goalie_game_logs ORDER BY game_log_id", "SELECT * FROM box_score_lines ORDER BY game_log_id, line",
                       "SELECT id, sha256, path, revision FROM sheets ORDER BY id", "SELECT id, sheet_id, approved_at FROM game_logs ORDER BY id",
                       "SELECT * FROM corrections ORDER BY id", "SELECT * FROM digit_embeddings ORDER BY sheet_id, field",
                       "SELECT * FROM known_names ORDER BY id", "SELECT path, sha256, error, attempts FROM scan_failures"]
        @Sendable func rows(_ db: Database) throws -> [[[String: DatabaseValue]]] {
            try queries.map { sql in try Row.fetchAll(db, sql: sql).map { Dictionary(uniqueKeysWithValues: $0.map { ($0, $1) }) } }
        }
        let before = try await DatabaseQueue(path: path).read(rows)
        #expect(before[0].count == 1 && before[1].count == 10 && before[2].count == 3 && before[4].count == 3 && before[7].count == 1)

        let store = try SQLiteSheetStore(path: path)
        let after = try await DatabaseQueue(path: path).read(rows)
        for (was, now) in zip(before, after) {
            #expect(now.map { $0.filter { !["sheet_page", "template_id", "opponent_points"].contains($0.key) } } == was)
        }
        #expect(after[0].allSatisfy { $0["sheet_page"] == .null } && after[1].allSatisfy { $0["sheet_page"] == .null })
        // Version 8: the views name each game's template, and a box score the opponent's score.
        #expect(after[0].allSatisfy { $0["template_id"] == "lacrosse-goalie".databaseValue })
        #expect(after[1].allSatisfy { $0["template_id"] == "basketball-box".databaseValue && $0["opponent_points"] != .null })
        let sheets = try await store.sheets(status: nil)
        #expect(sheets.allSatisfy { $0.page == nil } && sheets.map(\.source.description) == sheets.map(\.path))
        #expect(try await store.failures().map(\.page) == [nil])
        let examples = try await store.digitExamples()
        #expect(examples.filter { $0.source == .person }.map(\.digit) == [9], "the confirmed 9 still labels its digit")
        #expect(examples.first?.source == .person, "a person's labels come before a balanced sheet's")
        // The waiting sheet is reviewed and approved as any: its game log joins the view, at no page.
        let waiting = try #require(try await store.reviewQueue().first)
        let review = try await store.sheetReview(sheetID: waiting.id)
        try await store.approveSheet(SheetApproval(sheetID: waiting.id, expectedRevision: review.revision, reviewer: "ann", at: Date(),
                                                   gameLog: nil, ruleFailures: review.sheet.ruleFailures, overrideReason: "checked on paper"))
        let logs = try await store.goalieGameLogs(GameLogFilter())
        #expect(logs.count == 2 && logs.allSatisfy { $0.sheetPage == nil } && logs.contains { $0.sheetPath == waiting.path })
    }

    /// A store as statsheet left it at schema v6 (made by running v1–v6 and writing its rows as that schema has
    /// them) opens at v7 with the same sheets, readings, corrections, game logs and failures, at no page.
    @Test func aStoreAtV6MigratesToPages() async throws {
        let dir = try TemporaryStore.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("store.sqlite").path
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteSheetStore.migrator.migrate(queue, upTo: "v6")
            try await queue.write { db in for sql in EarlierStore.v6Rows { try db.execute(sql: sql) } }
            try queue.close()
        }
        try await EarlierStore.checkV6(try SQLiteSheetStore(path: path))
    }
}

/// One sheet of a v6 store with everything that refers to it, at ids a new store would not give, as SQL both
/// backends run; and what a v7 store must make of it.
enum EarlierStore {
    static let hash = String(repeating: "6e", count: 32)

    static let v6Rows = [
        """
        INSERT INTO sheets (id, sha256, path, template_id, template_version, status, alignment_quality, quarter_turns, milliseconds,
                            rule_failures, suggestions, scanned_at, revision)
        VALUES (7, '\(hash)', '/sheets/old.jpg', 'lacrosse-goalie', 1, 'clean', 0.9, 0, 120, '[]', '[]', '2026-04-11T10:00:00.000Z', 2)
        """,
        """
        INSERT INTO field_readings (sheet_id, field, position, kind, value, raw_text, confidence, flagged, notes, alternatives,
                                    cell_x, cell_y, cell_width, cell_height, doubts)
        VALUES (7, 'q1.shots', 0, 'count', '7', '7', 95, 0, '[]', '[]', 1, 2, 3, 4, '[]')
        """,
        """
        INSERT INTO corrections (sheet_id, field, original_value, original_text, original_confidence, new_value, reviewer, corrected_at)
        VALUES (7, 'q1.shots', '7', '7', 95, '8', 'ann', '2026-04-12T10:00:00.000Z')
        """,
        """
        INSERT INTO game_logs (id, sheet_id, role, athlete, game_date, opponent, context, source, approved_at, approved_by, created_at)
        VALUES (3, 7, 'goalie', 'Quinn Walker', '2026-04-11', 'Lincoln High', 'high_school', 'ocr', '2026-04-12T10:00:00.000Z', 'ann',
                '2026-04-11T10:00:00.000Z')
        """,
        "INSERT INTO game_log_stats (game_log_id, period, stat, value) VALUES (3, 'total', 'shots', 58), (3, 'p1', 'shots', 8)",
        """
        INSERT INTO scan_failures (path, sha256, error, attempts, first_failed_at, last_failed_at)
        VALUES ('/sheets/bad.jpg', NULL, 'no markers found', 2, '2026-04-11T10:00:00.000Z', '2026-04-12T10:00:00.000Z')
        """,
    ]

    static func checkV6(_ store: any SheetStore) async throws {
        let sheets = try await store.sheets(status: nil)
        #expect(sheets.map(\.id) == [7] && sheets.map(\.page) == [nil] && sheets.map(\.source.description) == ["/sheets/old.jpg"])
        #expect(try await store.storedSheets()[SheetKey(sha256: hash)]?.id == 7)
        #expect(try await store.readings(sheetID: 7).map(\.field) == ["q1.shots"])
        #expect(try await store.corrections(sheetID: 7).map(\.newValue) == [.integer(8)])
        let logs = try await store.goalieGameLogs(GameLogFilter())
        #expect(logs.map(\.id) == [3] && logs.map(\.sheetPath) == ["/sheets/old.jpg"] && logs.map(\.sheetPage) == [nil])
        #expect(logs.first?.totals.shots == 58 && logs.first?.periods["p1"]?.shots == 8)
        let failures = try await store.failures()
        #expect(failures.map(\.source.description) == ["/sheets/bad.jpg"] && failures.map(\.attempts) == [2])
        // Keys hold as before: the same one-image file is the one stored; its failure counts on; page 1 of the
        // same bytes is a new sheet.
        #expect(try await store.record(StoreConformance.sheet(hash: "6e"), policy: ApprovalPolicy(), replace: false)
                == .alreadyStored(sheetID: 7, status: .clean))
        try await store.recordFailure(NewFailure(path: "/sheets/bad.jpg", sha256: nil, error: "no markers found", at: Date()))
        #expect(try await store.failures().map(\.attempts) == [3])
        let page = try await store.record(StoreConformance.sheet(hash: "6e", date: "2026-04-18", path: "/sheets/old.pdf", page: 1),
                                          policy: ApprovalPolicy(), replace: false)
        guard case .stored(let id, .approved) = page else { Issue.record("\(page)"); return }
        #expect(id != 7)
        #expect(try await store.goalieGameLogs(GameLogFilter()).map(\.sheetPath) == ["/sheets/old.jpg", "/sheets/old.pdf#page=1"])
    }
}
