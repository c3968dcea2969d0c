import Foundation
import SheetModel

/// The statements both backends run, with `?` placeholders (the PostgreSQL backend numbers them
/// `$1…` before sending) and their arguments as `SQLValue`s each backend converts to its driver's
/// types: the SQL a store runs is written once, whatever the database.
enum StoreSQL {
    static let storedSheets = "SELECT id, sha256, page, status, template_id, template_version FROM sheets"

    /// A page as the store keeps it: 0 for a file that is one image (nil), so (sha256, page) is a plain unique
    /// key. Pages count from 1: a 0 or less would be taken for another sheet, so it is refused.
    static func page(_ page: Int?) throws -> SQLValue {
        guard let page else { return .int(0) }
        guard page >= 1 else { throw StoreError("page \(page): pages are counted from 1") }
        return .int(page)
    }

    /// A sheet's identity as the statements take it: hash, then stored page.
    static func key(_ key: SheetKey) throws -> [SQLValue] { [.text(key.sha256), try page(key.page)] }

    /// The columns of `sheets` a scan writes, with the sheet's values, in one order for insert and update.
    static func sheetColumns(_ sheet: NewSheet) -> [(String, SQLValue)] {
        let r = sheet.result
        return [
            ("path", .text(sheet.path)), ("template_id", .text(r.template ?? "")), ("template_version", .int(r.templateVersion ?? 0)),
            ("status", .text(r.status.rawValue)), ("alignment_quality", SQLValue(r.alignment?.quality)),
            ("quarter_turns", SQLValue(r.alignment?.quarterTurns)), ("milliseconds", .double(r.milliseconds)),
            ("rule_failures", .text(JSON.string(r.ruleFailures))), ("suggestions", .text(JSON.string(r.suggestions))),
            ("scanned_at", .text(Timestamp.string(sheet.scannedAt))), ("review_line", SQLValue(r.reviewLine)),
        ]
    }

    /// Inserts a sheet, its key's hash and page first, then `columns`; nothing when that page of that file is stored.
    static func insertSheet(columns: [String]) -> String {
        """
        INSERT INTO sheets (sha256, page, \(columns.joined(separator: ", "))) VALUES (?, ?\(String(repeating: ", ?", count: columns.count)))
        ON CONFLICT (sha256, page) DO NOTHING RETURNING id
        """
    }

    static func updateSheet(columns: [String]) -> String {
        "UPDATE sheets SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?"
    }

    static let sheetByKey = "SELECT id, status FROM sheets WHERE sha256 = ? AND page = ?"
    /// A re-read sheet loses its readings and cell images (the new ones follow), and counts as a new
    /// revision: it changed under any reviewer who has it open.
    static let rereadSheet = [
        "DELETE FROM field_readings WHERE sheet_id = ?",
        "DELETE FROM cell_images WHERE sheet_id = ?",
        "DELETE FROM digit_embeddings WHERE sheet_id = ?",
        "UPDATE sheets SET revision = revision + 1 WHERE id = ?",
    ]
    /// A stored sheet clears the failures of its page, by path or by hash, and any of its whole file (page 0):
    /// the file opened this time. Arguments: path, sha256, page.
    static let clearFailures = "DELETE FROM scan_failures WHERE (path = ? OR sha256 = ?) AND page IN (?, 0)"

    static let insertReading = """
        INSERT INTO field_readings (sheet_id, field, position, kind, value, raw_text, confidence, flagged, notes,
                                    alternatives, cell_x, cell_y, cell_width, cell_height, doubts, ink_value, ink_confidence)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    static func readingArguments(sheetID: Int64, position: Int, field: String, kind: FieldKind, reading: FieldReading, cell: Rect) -> [SQLValue] {
        [.int(sheetID), .text(field), .int(position), .text(kind.rawValue), .text(JSON.string(reading.value)), .text(reading.text),
         .double(reading.confidence), .int(reading.flagged ? 1 : 0), .text(JSON.string(reading.notes)),
         .text(JSON.string(reading.alternatives)), .double(cell.x), .double(cell.y), .double(cell.width), .double(cell.height),
         .text(JSON.string(reading.doubts)), SQLValue(reading.inkValue.map(JSON.string)), SQLValue(reading.inkConfidence)]
    }

    /// The readings of a new sheet, in template order, with each field's kind and printed box.
    static func readingRows(_ sheet: NewSheet, sheetID: Int64) -> [[SQLValue]] {
        let specs = Dictionary(sheet.fields.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return sheet.result.fields.enumerated().map { position, field in
            let spec = specs[field.id]
            return readingArguments(sheetID: sheetID, position: position, field: field.id, kind: spec?.kind ?? .text,
                                    reading: field.reading, cell: spec?.rect ?? Rect(x: 0, y: 0, width: 0, height: 0))
        }
    }

    static let insertCellImage = "INSERT INTO cell_images (sheet_id, field, png) VALUES (?, ?, ?)"
    static func cellImageRows(_ images: [String: Data], sheetID: Int64) -> [[SQLValue]] {
        images.sorted { $0.key < $1.key }.map { [.int(sheetID), .text($0.key), .bytes($0.value)] }
    }
    static let cellImages = "SELECT field, png FROM cell_images WHERE sheet_id = ? ORDER BY field"
    static let cellImage = "SELECT png FROM cell_images WHERE sheet_id = ? AND field = ?"

    static let gameLogOfSheet = "SELECT id, approved_by FROM game_logs WHERE sheet_id = ?"
    /// Deleting a game log: others that named it as their duplicate stop doing so first.
    static let deleteGameLog = ["UPDATE game_logs SET duplicate_of = NULL WHERE duplicate_of = ?"] + deleteGameLogNumbers
        + ["DELETE FROM game_logs WHERE id = ?"]

    /// The duplicate-game guard: the same athlete, date and opponent already logged, in the same
    /// context (a High School and a Club game may share a date) or where either context is unknown.
    static func duplicateGame(_ draft: GameLogDraft) -> (sql: String, arguments: [SQLValue])? {
        guard let athlete = draft.athlete, let date = draft.date else { return nil }
        var sql = """
            SELECT id FROM game_logs WHERE role = ? AND LOWER(athlete) = LOWER(?) AND game_date = ?
            AND LOWER(COALESCE(opponent, '')) = LOWER(?)
            """
        var arguments: [SQLValue] = [.text(draft.role), .text(athlete), .text(date), .text(draft.opponent ?? "")]
        if let context = draft.context {
            sql += " AND (context IS NULL OR context = ?)"
            arguments.append(.text(context))
        }
        return (sql + " ORDER BY id LIMIT 1", arguments)
    }

    /// Why a new game log waits for review, or nil when it is approved at once.
    static func pendingReason(_ draft: GameLogDraft, status: SheetStatus, policy: ApprovalPolicy, duplicate: Int64?) -> String? {
        var missing: [String] = []
        if draft.athlete == nil { missing.append("athlete") }
        if draft.date == nil { missing.append("date") }
        return if status != .clean { "the sheet needs review" }
            else if !policy.approveClean { "every sheet is reviewed (--review-all)" }
            else if let duplicate { "probable duplicate of game log \(duplicate): same athlete, date and opponent" }
            else if !missing.isEmpty { "no \(missing.joined(separator: " or ")) on the sheet" }
            else { nil }
    }

    /// The game log a scan makes of a sheet's draft: approved at once by `policy`, or waiting with why.
    static func newGameLog(_ draft: GameLogDraft, status: SheetStatus, policy: ApprovalPolicy, duplicate: Int64?, at now: Date) -> StoredGameLog {
        let reason = pendingReason(draft, status: status, policy: policy, duplicate: duplicate)
        return StoredGameLog(content: draft, source: "ocr", duplicateOfSheet: nil, pendingReason: reason,
                             approvedAt: reason == nil ? now : nil, approvedBy: reason == nil ? policy.approver : nil, createdAt: now)
    }

    static func outcome(id: Int64, _ log: StoredGameLog) -> GameLogOutcome {
        log.pendingReason.map { .pending(id: id, reason: $0) } ?? .approved(id: id)
    }

    static let insertGameLog = """
        INSERT INTO game_logs (sheet_id, role, athlete, game_date, opponent, context, conference, source, given_by_flags,
                               duplicate_of, pending_reason, approved_at, approved_by, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
        """

    static func gameLogArguments(sheetID: Int64, _ log: StoredGameLog, duplicateOf: Int64?) -> [SQLValue] {
        let c = log.content
        return [.int(sheetID), .text(c.role), SQLValue(c.athlete), SQLValue(c.date), SQLValue(c.opponent), SQLValue(c.context),
         SQLValue(c.conference), .text(log.source), SQLValue(c.givenByFlags.isEmpty ? nil : c.givenByFlags.joined(separator: ",")),
         SQLValue(duplicateOf), SQLValue(log.pendingReason), SQLValue(log.approvedAt.map(Timestamp.string)), SQLValue(log.approvedBy),
         .text(Timestamp.string(log.createdAt))]
    }

    static let insertStat = "INSERT INTO game_log_stats (game_log_id, period, stat, value) VALUES (?, ?, ?, ?)"
    static let insertPlayerLine = "INSERT INTO player_lines (game_log_id, line, number, player) VALUES (?, ?, ?, ?)"
    static let insertPlayerStat = "INSERT INTO player_line_stats (game_log_id, line, stat, value) VALUES (?, ?, ?, ?)"

    /// The statements that store a game log's numbers: its period stats and, for a box score, each
    /// player line with its stats.
    static func gameLogNumbers(gameLogID: Int64, _ draft: GameLogDraft) -> [(String, [SQLValue])] {
        draft.stats.map { (insertStat, [.int(gameLogID), .text($0.period), .text($0.stat), SQLValue($0.value)]) }
        + draft.players.flatMap { line in
            [(insertPlayerLine, [.int(gameLogID), .int(line.line), SQLValue(line.number), SQLValue(line.player)])]
            + line.stats.map { (insertPlayerStat, [.int(gameLogID), .int(line.line), .text($0.stat), SQLValue($0.value)]) }
        }
    }

    /// Removes what `gameLogNumbers` stored (an approval stores the corrected numbers in their place).
    static let deleteGameLogNumbers = [
        "DELETE FROM game_log_stats WHERE game_log_id = ?",
        "DELETE FROM player_line_stats WHERE game_log_id = ?",
        "DELETE FROM player_lines WHERE game_log_id = ?",
    ]

    /// Arguments: path, page, sha256, error, at, at.
    static let recordFailure = """
        INSERT INTO scan_failures (path, page, sha256, error, attempts, first_failed_at, last_failed_at) VALUES (?, ?, ?, ?, 1, ?, ?)
        ON CONFLICT (path, page) DO UPDATE SET sha256 = excluded.sha256, error = excluded.error,
            attempts = scan_failures.attempts + 1, last_failed_at = excluded.last_failed_at
        """
    /// A failure copied from another store: kept as it was there, attempts and times included.
    static let restoreFailure = """
        INSERT INTO scan_failures (path, page, sha256, error, attempts, first_failed_at, last_failed_at) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (path, page) DO UPDATE SET sha256 = excluded.sha256, error = excluded.error, attempts = excluded.attempts,
            first_failed_at = excluded.first_failed_at, last_failed_at = excluded.last_failed_at
        """
    static func recordFailureArguments(_ f: NewFailure) throws -> [SQLValue] {
        let at = Timestamp.string(f.at)
        return [.text(f.path), try page(f.page), SQLValue(f.sha256), .text(f.error), .text(at), .text(at)]
    }
    static func restoreFailureArguments(_ f: FailureRecord) throws -> [SQLValue] {
        [.text(f.path), try page(f.page), SQLValue(f.sha256), .text(f.error), .int(f.attempts), .text(Timestamp.string(f.firstFailedAt)),
         .text(Timestamp.string(f.lastFailedAt))]
    }

    static func sheets(status: SheetStatus?) -> (sql: String, arguments: [SQLValue]) {
        let sql = """
            SELECT s.*, (SELECT COUNT(*) FROM field_readings f WHERE f.sheet_id = s.id AND f.flagged = 1) AS flagged_fields
            FROM sheets s
            """
        guard let status else { return (sql + " ORDER BY s.id", []) }
        return (sql + " WHERE s.status = ? ORDER BY s.id", [.text(status.rawValue)])
    }

    static let sheetByID = "SELECT * FROM sheets WHERE id = ?"
    static let failures = "SELECT * FROM scan_failures ORDER BY path, page"
    static let readings = "SELECT * FROM field_readings WHERE sheet_id = ? ORDER BY position"
    static let reading = "SELECT * FROM field_readings WHERE sheet_id = ? AND field = ?"

    /// A filter's conditions on a view with `game_date` and the athlete (or team) in column `name`.
    static func dateAndNameConditions(_ filter: GameLogFilter, name: String) -> (conditions: [String], arguments: [SQLValue]) {
        var conditions: [String] = []
        var arguments: [SQLValue] = []
        if let athlete = filter.athlete { conditions.append("LOWER(\(name)) = LOWER(?)"); arguments.append(.text(athlete)) }
        if let from = filter.from { conditions.append("game_date >= ?"); arguments.append(.text(from)) }
        if let to = filter.to { conditions.append("game_date <= ?"); arguments.append(.text(to)) }
        return (conditions, arguments)
    }

    static func goalieGameLogs(_ filter: GameLogFilter) -> (sql: String, arguments: [SQLValue]) {
        let (conditions, arguments) = dateAndNameConditions(filter, name: "athlete")
        let sql = "SELECT * FROM goalie_game_logs" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            + " ORDER BY game_date, athlete, game_log_id"
        return (sql, arguments)
    }

    static func gameLogs(sheetID: Int64?) -> (sql: String, arguments: [SQLValue]) {
        guard let sheetID else { return ("SELECT * FROM game_logs ORDER BY id", []) }
        return ("SELECT * FROM game_logs WHERE sheet_id = ? ORDER BY id", [.int(sheetID)])
    }

    /// A game log's `duplicate_of` as the key (hash and page) of that log's sheet: ids differ between stores.
    static let duplicateSheetKey = "SELECT s.sha256, s.page FROM game_logs g JOIN sheets s ON s.id = g.sheet_id WHERE g.id = ?"
    static let gameLogOfSheetKey = "SELECT g.id FROM game_logs g JOIN sheets s ON s.id = g.sheet_id WHERE s.sha256 = ? AND s.page = ?"
    static let statsOfGameLog = "SELECT period, stat, value FROM game_log_stats WHERE game_log_id = ? ORDER BY period, stat"
    static let playerLinesOfGameLog = "SELECT line, number, player FROM player_lines WHERE game_log_id = ? ORDER BY line"
    static let playerStatsOfGameLog = "SELECT line, stat, value FROM player_line_stats WHERE game_log_id = ? ORDER BY line, stat"
    /// What a copy reads of a game log's numbers, in the order `StoreRows.storedSheet` takes them.
    static let gameLogNumberQueries = [statsOfGameLog, playerLinesOfGameLog, playerStatsOfGameLog]

    static func boxScoreLines(_ filter: GameLogFilter) -> (sql: String, arguments: [SQLValue]) {
        let (conditions, arguments) = dateAndNameConditions(filter, name: "team")
        let sql = "SELECT * FROM box_score_lines" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            + " ORDER BY game_date, team, game_log_id, line"
        return (sql, arguments)
    }

    static let approveGameLog = "UPDATE game_logs SET approved_at = ?, approved_by = ?, pending_reason = NULL WHERE id = ?"

    static let insertCorrection = """
        INSERT INTO corrections (sheet_id, field, original_value, original_text, original_confidence, new_value,
                                 reviewer, corrected_at, note)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
        """
    static func correctionArguments(sheetID: Int64, field: String, original: FieldReading, newValue: FieldValue, reviewer: String,
                                    at: Date, note: String?) -> [SQLValue] {
        [.int(sheetID), .text(field), .text(JSON.string(original.value)), .text(original.text), .double(original.confidence),
         .text(JSON.string(newValue)), .text(reviewer), .text(Timestamp.string(at)), SQLValue(note)]
    }
    static let corrections = "SELECT * FROM corrections WHERE sheet_id = ? ORDER BY id"
    static let allCorrections = "SELECT * FROM corrections ORDER BY id"
    static let flaggedReadings = "SELECT * FROM field_readings WHERE flagged = 1 ORDER BY sheet_id, position"

    /// The reading a correction changes, checked: the field exists and the value fits its kind.
    static func checkedCorrection(_ correction: NewCorrection, reading row: SQLRow?) throws -> StoredReading {
        guard let row else { throw StoreError("sheet \(correction.sheetID) has no field '\(correction.field)'") }
        let stored = StoreRows.reading(row)
        guard stored.kind.accepts(correction.newValue) else {
            throw StoreError("'\(correction.newValue)' is not a value for \(correction.field) (a \(stored.kind.rawValue))")
        }
        return stored
    }

    // MARK: Review (issue 6)

    /// Bumps the sheet's revision and returns the new one. The row is locked by the update until the
    /// transaction ends (SQLite: the whole database), so of two reviewers who saw the same revision
    /// the second always finds it moved on (`checkRevision`) — on PostgreSQL too, where both
    /// stations' transactions may run at once.
    static let bumpRevision = "UPDATE sheets SET revision = revision + 1 WHERE id = ? RETURNING revision"

    /// The revision before `bumpRevision`, checked against the one the reviewer saw.
    static func checkRevision(sheetID: Int64, expected: Int?, bumped: Int64?) throws -> Int {
        guard let bumped else { throw StoreError("no sheet \(sheetID)") }
        let before = Int(bumped) - 1
        if let expected, expected != before {
            throw ReviewConflict(sheetID: sheetID, expectedRevision: expected, actualRevision: before)
        }
        return Int(bumped)
    }

    static let reviewQueue = sheets(status: nil).sql.replacingOccurrences(of: " ORDER BY s.id", with: "")
        + " WHERE " + Schema.reviewQueueCondition + " ORDER BY s.scanned_at, s.id"
    static let sheetSummary = sheets(status: nil).sql.replacingOccurrences(of: " ORDER BY s.id", with: " WHERE s.id = ?")
    static let latestDecision = "SELECT * FROM review_decisions WHERE sheet_id = ? ORDER BY id DESC LIMIT 1"
    static let decisions = "SELECT * FROM review_decisions WHERE sheet_id = ? ORDER BY id"

    static let lastLiveCorrection = "SELECT id FROM corrections WHERE sheet_id = ? AND undone_at IS NULL ORDER BY id DESC LIMIT 1"
    static let undoCorrection = "UPDATE corrections SET undone_at = ?, undone_by = ? WHERE id = ?"
    static let correction = "SELECT * FROM corrections WHERE id = ?"

    /// An approval's game log: the draft's metadata where it has some (a nil keeps what is stored,
    /// e.g. given by flags), approved by the reviewer.
    static let approveSheetGameLog = """
        UPDATE game_logs SET athlete = COALESCE(?, athlete), game_date = COALESCE(?, game_date),
            opponent = COALESCE(?, opponent), context = COALESCE(?, context), conference = COALESCE(?, conference),
            approved_at = ?, approved_by = ?, pending_reason = NULL
        WHERE id = ?
        """
    static func approveSheetGameLogArguments(_ draft: GameLogDraft?, reviewer: String, at: Date, gameLogID: Int64) -> [SQLValue] {
        [SQLValue(draft?.athlete), SQLValue(draft?.date), SQLValue(draft?.opponent), SQLValue(draft?.context), SQLValue(draft?.conference),
         .text(Timestamp.string(at)), .text(reviewer), .int(gameLogID)]
    }
    static let gameLogIDOfSheet = "SELECT id FROM game_logs WHERE sheet_id = ?"

    static let rejectGameLog = "UPDATE game_logs SET pending_reason = ? WHERE sheet_id = ? AND approved_at IS NULL"

    static let insertDecision = """
        INSERT INTO review_decisions (sheet_id, decision, reviewer, decided_at, reason, rule_failures, revision)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """
    static func decisionArguments(_ kind: ReviewDecision.Kind, sheetID: Int64, reviewer: String, at: Date, reason: String?,
                                  failures: [RuleFailure], revision: Int) -> [SQLValue] {
        [.int(sheetID), .text(kind.rawValue), .text(reviewer), .text(Timestamp.string(at)), SQLValue(reason), .text(JSON.string(failures)),
         .int(revision)]
    }

    /// The reason an approval records, checked: one is required while rules still fail.
    static func overrideReason(_ approval: SheetApproval) throws -> String? {
        let reason = approval.overrideReason?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if !approval.ruleFailures.isEmpty && reason.isEmpty {
            throw StoreError("rules still fail (\(approval.ruleFailures.map(\.rule).joined(separator: ", "))): approving needs an override reason")
        }
        return reason.isEmpty ? nil : reason
    }

    static func rejectionReason(_ rejection: SheetRejection) throws -> String {
        let reason = rejection.reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty else { throw StoreError("rejecting a sheet needs a reason") }
        return reason
    }

    // MARK: Copying (issue 7)

    static let insertCopiedCorrection = """
        INSERT INTO corrections (sheet_id, field, original_value, original_text, original_confidence, new_value,
                                 reviewer, corrected_at, note, undone_at, undone_by)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// A copied sheet's readings, corrections (undo marks included), decisions and cell images, as
    /// statements to run after its row is inserted as `sheetID`.
    static func history(of sheet: StoredSheet, sheetID: Int64) -> [(String, [SQLValue])] {
        sheet.readings.enumerated().map { position, r in
            (insertReading, readingArguments(sheetID: sheetID, position: position, field: r.field, kind: r.kind, reading: r.reading, cell: r.cell))
        }
        + sheet.corrections.map { c in
            (insertCopiedCorrection, correctionArguments(sheetID: sheetID, field: c.field, original: c.original, newValue: c.newValue,
                                                         reviewer: c.reviewer, at: c.at, note: c.note)
                + [SQLValue(c.undoneAt.map(Timestamp.string)), SQLValue(c.undoneBy)])
        }
        + sheet.decisions.map { d in
            (insertDecision, decisionArguments(d.kind, sheetID: sheetID, reviewer: d.reviewer, at: d.at, reason: d.reason,
                                               failures: d.ruleFailures, revision: d.revision))
        }
        + cellImageRows(sheet.cellImages, sheetID: sheetID).map { (insertCellImage, $0) }
        + digitEmbeddingRows(sheet.digitEmbeddings, sheetID: sheetID).map { (insertDigitEmbeddings, $0) }
    }
}

/// One argument of a statement, in the few types the schema uses.
enum SQLValue: Sendable, Equatable {
    case int(Int64), double(Double), text(String), bytes(Data), null

    static func int(_ value: Int) -> SQLValue { .int(Int64(value)) }
    init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    init(_ value: Double?) { self = value.map { .double($0) } ?? .null }
    init(_ value: Int?) { self = value.map { .int(Int64($0)) } ?? .null }
    init(_ value: Int64?) { self = value.map { .int($0) } ?? .null }
}

/// One result row, read the same way from either backend: each backend fills it from its driver's row.
struct SQLRow: Sendable {
    var columns: [String: SQLValue]

    func string(_ name: String) -> String? { if case .text(let v) = columns[name] { v } else { nil } }
    func text(_ name: String) -> String { string(name) ?? "" }
    func int64(_ name: String) -> Int64? {
        switch columns[name] {
        case .int(let v): v
        case .double(let v): Int64(v)
        default: nil
        }
    }
    func int(_ name: String) -> Int? { int64(name).map(Int.init) }
    func data(_ name: String) -> Data? { if case .bytes(let v) = columns[name] { v } else { nil } }
    func double(_ name: String) -> Double? {
        switch columns[name] {
        case .double(let v): v
        case .int(let v): Double(v)
        default: nil
        }
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
