import Foundation
import GRDB
import SheetModel

/// The embedded store: one SQLite file in WAL mode. Several processes may share it: every write is
/// an `IMMEDIATE` transaction (writers queue on SQLite's lock, waiting up to `busyTimeout`), and a
/// sheet is inserted with `ON CONFLICT (sha256) DO NOTHING`, so the second of two processes that
/// read the same file finds it stored and adds nothing.
public final class SQLiteSheetStore: SheetStore {
    private let pool: DatabasePool
    public let path: String

    /// Opens (creating if needed) the store at `path` and brings its schema up to date.
    public init(path: String, busyTimeout: TimeInterval = 60) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = true
        configuration.label = "statsheet.store"
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw StoreError("cannot open the store \(path): \(Self.describe(error))")
        }
        self.path = path
        try migrate()
    }

    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            for statement in Schema.version1(identity: "INTEGER PRIMARY KEY") { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v2") { db in
            for statement in Schema.version2(identity: "INTEGER PRIMARY KEY", bytes: "BLOB") { try db.execute(sql: statement) }
        }
        return migrator
    }()

    /// Two processes opening a new store at once both see no migration applied; the second's
    /// `CREATE TABLE` then fails after waiting for the first. Trying again finds the schema in place.
    private func migrate() throws {
        var attempt = 0
        while true {
            do {
                try Self.migrator.migrate(pool)
                return
            } catch {
                attempt += 1
                if attempt >= 5 { throw StoreError("cannot prepare the store \(path): \(Self.describe(error))") }
                Thread.sleep(forTimeInterval: 0.05 * Double(attempt))
            }
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "\(error)" }
        return "\(error)"
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.writeWithoutTransaction { db in
                var value: T?
                try db.inTransaction(.immediate) {
                    value = try body(db)
                    return .commit
                }
                return value!
            }
        } catch let error as StoreError {
            throw error
        } catch let error as ReviewConflict {
            throw error
        } catch {
            throw StoreError("store \(path): \(Self.describe(error))")
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.read(body)
        } catch let error as StoreError {
            throw error
        } catch let error as ReviewConflict {
            throw error
        } catch {
            throw StoreError("store \(path): \(Self.describe(error))")
        }
    }

    // MARK: Sheets

    public func storedHashes() async throws -> [String: StoredSheetState] {
        try await read { db in
            var states: [String: StoredSheetState] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, sha256, status, template_id, template_version FROM sheets") {
                states[row["sha256"]] = StoredSheetState(id: row["id"], status: SheetStatus(rawValue: row["status"]) ?? .needsReview,
                                                         templateID: row["template_id"], templateVersion: row["template_version"])
            }
            return states
        }
    }

    public func record(_ sheet: NewSheet, policy: ApprovalPolicy, replace: Bool) async throws -> RecordOutcome {
        guard sheet.result.status != .failed else { throw StoreError("a failed reading is recorded with recordFailure, not stored as a sheet") }
        return try await write { db in try Self.record(sheet, policy: policy, replace: replace, in: db) }
    }

    private static func record(_ sheet: NewSheet, policy: ApprovalPolicy, replace: Bool, in db: Database) throws -> RecordOutcome {
        let r = sheet.result
        let now = Timestamp.string(sheet.scannedAt)
        let columns: [String: (any DatabaseValueConvertible)?] = [
            "path": sheet.path, "template_id": r.template ?? "", "template_version": r.templateVersion ?? 0,
            "status": r.status.rawValue, "alignment_quality": r.alignment?.quality, "quarter_turns": r.alignment?.quarterTurns,
            "milliseconds": r.milliseconds, "rule_failures": JSON.string(r.ruleFailures), "suggestions": JSON.string(r.suggestions),
            "scanned_at": now,
        ]
        let names = columns.keys.sorted()
        let sheetID: Int64
        var replaced = false
        if let id = try Int64.fetchOne(db, sql: """
            INSERT INTO sheets (sha256, \(names.joined(separator: ", "))) VALUES (?\(String(repeating: ", ?", count: names.count)))
            ON CONFLICT (sha256) DO NOTHING RETURNING id
            """, arguments: StatementArguments([sheet.sha256] + names.map { columns[$0]! })) {
            sheetID = id
        } else {
            let existing = try Row.fetchOne(db, sql: "SELECT id, status FROM sheets WHERE sha256 = ?", arguments: [sheet.sha256])!
            sheetID = existing["id"]
            guard replace else {
                return .alreadyStored(sheetID: sheetID, status: SheetStatus(rawValue: existing["status"]) ?? .needsReview)
            }
            try db.execute(sql: "UPDATE sheets SET \(names.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?",
                           arguments: StatementArguments(names.map { columns[$0]! } + [sheetID]))
            try db.execute(sql: "DELETE FROM field_readings WHERE sheet_id = ?", arguments: [sheetID])
            try db.execute(sql: "DELETE FROM cell_images WHERE sheet_id = ?", arguments: [sheetID])
            // Readings changed under any reviewer who has this sheet open.
            try db.execute(sql: "UPDATE sheets SET revision = revision + 1 WHERE id = ?", arguments: [sheetID])
            replaced = true
        }
        func outcome(_ gameLog: GameLogOutcome) -> RecordOutcome {
            replaced ? .replaced(sheetID: sheetID, gameLog: gameLog) : .stored(sheetID: sheetID, gameLog: gameLog)
        }
        let specs = Dictionary(sheet.fields.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for (position, field) in r.fields.enumerated() {
            let reading = field.reading
            let spec = specs[field.id]
            let rect = spec?.rect ?? Rect(x: 0, y: 0, width: 0, height: 0)
            try db.execute(sql: """
                INSERT INTO field_readings (sheet_id, field, position, kind, value, raw_text, confidence, flagged, notes,
                                            alternatives, cell_x, cell_y, cell_width, cell_height)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [sheetID, field.id, position, (spec?.kind ?? .text).rawValue, JSON.string(reading.value),
                                 reading.text, reading.confidence, reading.flagged ? 1 : 0, JSON.string(reading.notes),
                                 JSON.string(reading.alternatives), rect.x, rect.y, rect.width, rect.height])
        }
        for (field, png) in sheet.cellImages.sorted(by: { $0.key < $1.key }) {
            try db.execute(sql: "INSERT INTO cell_images (sheet_id, field, png) VALUES (?, ?, ?)", arguments: [sheetID, field, png])
        }
        try db.execute(sql: "DELETE FROM scan_failures WHERE path = ? OR sha256 = ?", arguments: [sheet.path, sheet.sha256])

        guard let draft = sheet.gameLog else { return outcome(.none) }
        if let kept = try Row.fetchOne(db, sql: "SELECT id, approved_by FROM game_logs WHERE sheet_id = ?", arguments: [sheetID]) {
            // A re-read keeps a game log a person approved; one made by policy is made again.
            let approvedBy: String? = kept["approved_by"]
            if let approvedBy, approvedBy != policy.approver { return outcome(.approved(id: kept["id"])) }
            try deleteGameLog(id: kept["id"], in: db)
        }
        return outcome(try insertGameLog(draft, sheetID: sheetID, status: r.status, policy: policy, at: now, in: db))
    }

    private static func deleteGameLog(id: Int64, in db: Database) throws {
        try db.execute(sql: "UPDATE game_logs SET duplicate_of = NULL WHERE duplicate_of = ?", arguments: [id])
        try db.execute(sql: "DELETE FROM game_log_stats WHERE game_log_id = ?", arguments: [id])
        try db.execute(sql: "DELETE FROM game_logs WHERE id = ?", arguments: [id])
    }

    private static func insertGameLog(_ draft: GameLogDraft, sheetID: Int64, status: SheetStatus, policy: ApprovalPolicy,
                                      at now: String, in db: Database) throws -> GameLogOutcome {
        // The duplicate-game guard: the same athlete, date and opponent already logged, in the same
        // context (a High School and a Club game may share a date) or where either context is unknown.
        var duplicate: Int64?
        if let athlete = draft.athlete, let date = draft.date {
            var sql = """
                SELECT id FROM game_logs WHERE role = ? AND LOWER(athlete) = LOWER(?) AND game_date = ?
                AND LOWER(COALESCE(opponent, '')) = LOWER(?)
                """
            var arguments: [(any DatabaseValueConvertible)?] = [draft.role, athlete, date, draft.opponent ?? ""]
            if let context = draft.context {
                sql += " AND (context IS NULL OR context = ?)"
                arguments.append(context)
            }
            duplicate = try Int64.fetchOne(db, sql: sql + " ORDER BY id LIMIT 1", arguments: StatementArguments(arguments))
        }
        var missing: [String] = []
        if draft.athlete == nil { missing.append("athlete") }
        if draft.date == nil { missing.append("date") }
        let reason: String? =
            if status != .clean { "the sheet needs review" }
            else if !policy.approveClean { "every sheet is reviewed (--review-all)" }
            else if let duplicate { "probable duplicate of game log \(duplicate): same athlete, date and opponent" }
            else if !missing.isEmpty { "no \(missing.joined(separator: " or ")) on the sheet" }
            else { nil }
        let id = try Int64.fetchOne(db, sql: """
            INSERT INTO game_logs (sheet_id, role, athlete, game_date, opponent, context, conference, source, given_by_flags,
                                   duplicate_of, pending_reason, approved_at, approved_by, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, 'ocr', ?, ?, ?, ?, ?, ?) RETURNING id
            """, arguments: [sheetID, draft.role, draft.athlete, draft.date, draft.opponent, draft.context, draft.conference,
                             draft.givenByFlags.isEmpty ? nil : draft.givenByFlags.joined(separator: ","), duplicate, reason,
                             reason == nil ? now : nil, reason == nil ? policy.approver : nil, now])!
        for stat in draft.stats {
            try db.execute(sql: "INSERT INTO game_log_stats (game_log_id, period, stat, value) VALUES (?, ?, ?, ?)",
                           arguments: [id, stat.period, stat.stat, stat.value])
        }
        return reason.map { .pending(id: id, reason: $0) } ?? .approved(id: id)
    }

    public func recordFailure(_ failure: NewFailure) async throws {
        try await write { db in
            let at = Timestamp.string(failure.at)
            try db.execute(sql: """
                INSERT INTO scan_failures (path, sha256, error, attempts, first_failed_at, last_failed_at) VALUES (?, ?, ?, 1, ?, ?)
                ON CONFLICT (path) DO UPDATE SET sha256 = excluded.sha256, error = excluded.error,
                    attempts = scan_failures.attempts + 1, last_failed_at = excluded.last_failed_at
                """, arguments: [failure.path, failure.sha256, failure.error, at, at])
        }
    }

    public func sheets(status: SheetStatus?) async throws -> [SheetSummary] {
        try await read { db in
            var sql = Self.summarySelect
            var arguments: StatementArguments = []
            if let status {
                sql += " WHERE s.status = ?"
                arguments = [status.rawValue]
            }
            return try Row.fetchAll(db, sql: sql + " ORDER BY s.id", arguments: arguments).map(Self.summary)
        }
    }

    /// A `sheets` row with its `flagged_fields` count.
    static func summary(_ row: Row) -> SheetSummary {
        SheetSummary(id: row["id"], sha256: row["sha256"], path: row["path"], templateID: row["template_id"],
                     templateVersion: row["template_version"], status: SheetStatus(rawValue: row["status"]) ?? .needsReview,
                     scannedAt: Timestamp.date(row["scanned_at"]), alignmentQuality: row["alignment_quality"],
                     flaggedFields: row["flagged_fields"], ruleFailures: JSON.decode(row["rule_failures"]) ?? [])
    }

    static let summarySelect = """
        SELECT s.*, (SELECT COUNT(*) FROM field_readings f WHERE f.sheet_id = s.id AND f.flagged = 1) AS flagged_fields
        FROM sheets s
        """

    public func failures() async throws -> [FailureRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM scan_failures ORDER BY path").map { row in
                FailureRecord(path: row["path"], sha256: row["sha256"], error: row["error"], attempts: row["attempts"],
                              firstFailedAt: Timestamp.date(row["first_failed_at"]), lastFailedAt: Timestamp.date(row["last_failed_at"]))
            }
        }
    }

    public func readings(sheetID: Int64) async throws -> [StoredReading] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM field_readings WHERE sheet_id = ? ORDER BY position", arguments: [sheetID]).map(Self.reading)
        }
    }

    static func reading(_ row: Row) -> StoredReading {
        var reading = FieldReading(value: JSON.decode(row["value"]) ?? .empty, text: row["raw_text"], confidence: row["confidence"],
                                   flagged: (row["flagged"] as Int) != 0, notes: JSON.decode(row["notes"]) ?? [])
        reading.alternatives = JSON.decode(row["alternatives"]) ?? []
        return StoredReading(field: row["field"], kind: FieldKind(rawValue: row["kind"]) ?? .text, reading: reading,
                             cell: Rect(x: row["cell_x"], y: row["cell_y"], width: row["cell_width"], height: row["cell_height"]))
    }

    // MARK: Game logs

    public func goalieGameLogs(_ filter: GameLogFilter) async throws -> [GoalieGameLog] {
        try await read { db in
            var conditions: [String] = []
            var arguments: [(any DatabaseValueConvertible)?] = []
            if let athlete = filter.athlete { conditions.append("LOWER(athlete) = LOWER(?)"); arguments.append(athlete) }
            if let from = filter.from { conditions.append("game_date >= ?"); arguments.append(from) }
            if let to = filter.to { conditions.append("game_date <= ?"); arguments.append(to) }
            let sql = "SELECT * FROM goalie_game_logs" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
                + " ORDER BY game_date, athlete, game_log_id"
            return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map { row in
                func stats(_ prefix: String) -> GoalieStats {
                    GoalieStats(shots: row[prefix + "shots"], saves: row[prefix + "saves"],
                                goalsAllowed: row[prefix + "goals_allowed"], clears: row[prefix + "clears"])
                }
                let flags: String? = row["given_by_flags"]
                let approvedAt: String? = row["approved_at"]
                return GoalieGameLog(
                    id: row["game_log_id"], athlete: row["athlete"], date: row["game_date"], context: row["context"],
                    conference: row["conference"], opponent: row["opponent"], source: row["source"],
                    givenByFlags: flags?.split(separator: ",").map(String.init) ?? [], sheetPath: row["sheet_path"],
                    sheetSHA256: row["sheet_sha256"], approvedAt: approvedAt.map(Timestamp.date), approvedBy: row["approved_by"],
                    totals: stats(""), periods: Dictionary(uniqueKeysWithValues: GoalieGameLog.periodColumns.map { ($0, stats($0 + "_")) }))
            }
        }
    }

    public func gameLogs(sheetID: Int64?) async throws -> [GameLogSummary] {
        try await read { db in
            let sql = "SELECT * FROM game_logs" + (sheetID == nil ? "" : " WHERE sheet_id = ?") + " ORDER BY id"
            return try Row.fetchAll(db, sql: sql, arguments: sheetID.map { [$0] } ?? []).map(Self.gameLogSummary)
        }
    }

    static func gameLogSummary(_ row: Row) -> GameLogSummary {
        let approvedAt: String? = row["approved_at"]
        return GameLogSummary(id: row["id"], sheetID: row["sheet_id"], role: row["role"], athlete: row["athlete"],
                              date: row["game_date"], opponent: row["opponent"], context: row["context"],
                              approvedAt: approvedAt.map(Timestamp.date), approvedBy: row["approved_by"],
                              duplicateOf: row["duplicate_of"], pendingReason: row["pending_reason"])
    }

    public func approveGameLog(id: Int64, by reviewer: String, at time: Date) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE game_logs SET approved_at = ?, approved_by = ?, pending_reason = NULL WHERE id = ?",
                           arguments: [Timestamp.string(time), reviewer, id])
            if db.changesCount == 0 { throw StoreError("no game log \(id)") }
        }
    }

    // MARK: Corrections

    public func addCorrection(_ correction: NewCorrection) async throws -> Int64 {
        try await write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM field_readings WHERE sheet_id = ? AND field = ?",
                                             arguments: [correction.sheetID, correction.field]) else {
                throw StoreError("sheet \(correction.sheetID) has no field '\(correction.field)'")
            }
            let stored = Self.reading(row)
            guard stored.kind.accepts(correction.newValue) else {
                throw StoreError("'\(correction.newValue)' is not a value for \(correction.field) (a \(stored.kind.rawValue))")
            }
            _ = try Self.bumpRevision(sheetID: correction.sheetID, expected: correction.expectedRevision, in: db)
            let original = stored.reading
            return try Int64.fetchOne(db, sql: """
                INSERT INTO corrections (sheet_id, field, original_value, original_text, original_confidence, new_value,
                                         reviewer, corrected_at, note)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """, arguments: [correction.sheetID, correction.field, JSON.string(original.value), original.text,
                                 original.confidence, JSON.string(correction.newValue), correction.reviewer,
                                 Timestamp.string(correction.at), correction.note])!
        }
    }

    public func corrections(sheetID: Int64) async throws -> [Correction] {
        try await read { db in try Self.corrections(sheetID: sheetID, in: db) }
    }

    static func corrections(sheetID: Int64, in db: Database) throws -> [Correction] {
        try Row.fetchAll(db, sql: "SELECT * FROM corrections WHERE sheet_id = ? ORDER BY id", arguments: [sheetID]).map(correction)
    }

    static func correction(_ row: Row) -> Correction {
        let undoneAt: String? = row["undone_at"]
        return Correction(id: row["id"], sheetID: row["sheet_id"], field: row["field"],
                          original: FieldReading(value: JSON.decode(row["original_value"]) ?? .empty, text: row["original_text"],
                                                 confidence: row["original_confidence"]),
                          newValue: JSON.decode(row["new_value"]) ?? .empty, reviewer: row["reviewer"],
                          at: Timestamp.date(row["corrected_at"]), note: row["note"],
                          undoneAt: undoneAt.map(Timestamp.date), undoneBy: row["undone_by"])
    }
}

/// Times are stored as ISO 8601 UTC text with milliseconds, which sorts and compares the same in
/// every SQL database.
enum Timestamp {
    static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!)
    static func string(_ date: Date) -> String { date.formatted(style) }
    static func date(_ text: String) -> Date { (try? style.parse(text)) ?? Date(timeIntervalSince1970: 0) }
}

/// Readings' values, notes, alternatives and rule failures are stored as JSON text.
enum JSON {
    static func string<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    static func decode<T: Decodable>(_ text: String?) -> T? {
        guard let text else { return nil }
        return try? JSONDecoder().decode(T.self, from: Data(text.utf8))
    }
}
