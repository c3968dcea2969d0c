import Foundation
import GRDB
import SheetModel

/// The review screen's writes (issue 6). Each is one `IMMEDIATE` transaction that first checks the
/// sheet's revision against the one the reviewer saw and bumps it, so of two reviewers writing the
/// same sheet the second gets `ReviewConflict` instead of overwriting the first.
extension SQLiteSheetStore {
    /// Checks `expected` (when given) against the sheet's revision and bumps it; the new revision.
    static func bumpRevision(sheetID: Int64, expected: Int?, in db: Database) throws -> Int {
        guard let current = try Int.fetchOne(db, sql: "SELECT revision FROM sheets WHERE id = ?", arguments: [sheetID]) else {
            throw StoreError("no sheet \(sheetID)")
        }
        if let expected, expected != current {
            throw ReviewConflict(sheetID: sheetID, expectedRevision: expected, actualRevision: current)
        }
        try db.execute(sql: "UPDATE sheets SET revision = revision + 1 WHERE id = ?", arguments: [sheetID])
        return current + 1
    }

    public func reviewQueue() async throws -> [SheetSummary] {
        try await read { db in
            try Row.fetchAll(db, sql: Self.summarySelect + " WHERE " + Schema.reviewQueueCondition + " ORDER BY s.scanned_at, s.id")
                .map(Self.summary)
        }
    }

    public func sheetReview(sheetID: Int64) async throws -> SheetReview {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: Self.summarySelect + " WHERE s.id = ?", arguments: [sheetID]) else {
                throw StoreError("no sheet \(sheetID)")
            }
            let corrections = try Self.corrections(sheetID: sheetID, in: db)
            var live: [String: Correction] = [:]
            for correction in corrections where correction.isLive { live[correction.field] = correction }
            let readings = try Row.fetchAll(db, sql: "SELECT * FROM field_readings WHERE sheet_id = ? ORDER BY position",
                                            arguments: [sheetID]).map(Self.reading)
            let gameLog = try Row.fetchOne(db, sql: "SELECT * FROM game_logs WHERE sheet_id = ?", arguments: [sheetID]).map(Self.gameLogSummary)
            let decision = try Row.fetchOne(db, sql: "SELECT * FROM review_decisions WHERE sheet_id = ? ORDER BY id DESC LIMIT 1",
                                            arguments: [sheetID]).map(Self.decision)
            return SheetReview(sheet: Self.summary(row), revision: row["revision"],
                               fields: readings.map { ReviewField(stored: $0, correction: live[$0.field]) },
                               corrections: corrections, suggestions: JSON.decode(row["suggestions"]) ?? [],
                               gameLog: gameLog, decision: decision)
        }
    }

    public func undoLastCorrection(_ undo: UndoRequest) async throws -> Correction? {
        try await write { db in
            _ = try Self.bumpRevision(sheetID: undo.sheetID, expected: undo.expectedRevision, in: db)
            guard let id = try Int64.fetchOne(db, sql: """
                SELECT id FROM corrections WHERE sheet_id = ? AND undone_at IS NULL ORDER BY id DESC LIMIT 1
                """, arguments: [undo.sheetID]) else { return nil }
            try db.execute(sql: "UPDATE corrections SET undone_at = ?, undone_by = ? WHERE id = ?",
                           arguments: [Timestamp.string(undo.at), undo.reviewer, id])
            return try Row.fetchOne(db, sql: "SELECT * FROM corrections WHERE id = ?", arguments: [id]).map(Self.correction)
        }
    }

    public func approveSheet(_ approval: SheetApproval) async throws {
        let reason = approval.overrideReason?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if !approval.ruleFailures.isEmpty && reason.isEmpty {
            throw StoreError("rules still fail (\(approval.ruleFailures.map(\.rule).joined(separator: ", "))): approving needs an override reason")
        }
        try await write { db in
            let revision = try Self.bumpRevision(sheetID: approval.sheetID, expected: approval.expectedRevision, in: db)
            let now = Timestamp.string(approval.at)
            if let logID = try Int64.fetchOne(db, sql: "SELECT id FROM game_logs WHERE sheet_id = ?", arguments: [approval.sheetID]) {
                // Metadata the draft lacks (given by flags at scan time) is kept as stored.
                let draft = approval.gameLog
                try db.execute(sql: """
                    UPDATE game_logs SET athlete = COALESCE(?, athlete), game_date = COALESCE(?, game_date),
                        opponent = COALESCE(?, opponent), context = COALESCE(?, context), conference = COALESCE(?, conference),
                        approved_at = ?, approved_by = ?, pending_reason = NULL
                    WHERE id = ?
                    """, arguments: [draft?.athlete, draft?.date, draft?.opponent, draft?.context, draft?.conference,
                                     now, approval.reviewer, logID])
                if let draft {
                    try db.execute(sql: "DELETE FROM game_log_stats WHERE game_log_id = ?", arguments: [logID])
                    for stat in draft.stats {
                        try db.execute(sql: "INSERT INTO game_log_stats (game_log_id, period, stat, value) VALUES (?, ?, ?, ?)",
                                       arguments: [logID, stat.period, stat.stat, stat.value])
                    }
                }
            }
            try Self.insertDecision(.approved, sheetID: approval.sheetID, reviewer: approval.reviewer, at: now,
                                    reason: reason.isEmpty ? nil : reason, failures: approval.ruleFailures, revision: revision, in: db)
        }
    }

    public func rejectSheet(_ rejection: SheetRejection) async throws {
        let reason = rejection.reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty else { throw StoreError("rejecting a sheet needs a reason") }
        try await write { db in
            let revision = try Self.bumpRevision(sheetID: rejection.sheetID, expected: rejection.expectedRevision, in: db)
            let now = Timestamp.string(rejection.at)
            try db.execute(sql: "UPDATE game_logs SET pending_reason = ? WHERE sheet_id = ? AND approved_at IS NULL",
                           arguments: ["rejected by \(rejection.reviewer): \(reason)", rejection.sheetID])
            try Self.insertDecision(.rejected, sheetID: rejection.sheetID, reviewer: rejection.reviewer, at: now,
                                    reason: reason, failures: [], revision: revision, in: db)
        }
    }

    private static func insertDecision(_ kind: ReviewDecision.Kind, sheetID: Int64, reviewer: String, at now: String, reason: String?,
                                       failures: [RuleFailure], revision: Int, in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO review_decisions (sheet_id, decision, reviewer, decided_at, reason, rule_failures, revision)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [sheetID, kind.rawValue, reviewer, now, reason, JSON.string(failures), revision])
    }

    public func decisions(sheetID: Int64) async throws -> [ReviewDecision] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM review_decisions WHERE sheet_id = ? ORDER BY id", arguments: [sheetID]).map(Self.decision)
        }
    }

    static func decision(_ row: Row) -> ReviewDecision {
        ReviewDecision(id: row["id"], sheetID: row["sheet_id"], kind: ReviewDecision.Kind(rawValue: row["decision"]) ?? .rejected,
                       reviewer: row["reviewer"], at: Timestamp.date(row["decided_at"]), reason: row["reason"],
                       ruleFailures: JSON.decode(row["rule_failures"]) ?? [], revision: row["revision"])
    }

    public func cellImage(sheetID: Int64, field: String) async throws -> Data? {
        try await read { db in
            try Data.fetchOne(db, sql: "SELECT png FROM cell_images WHERE sheet_id = ? AND field = ?", arguments: [sheetID, field])
        }
    }
}
