import Foundation
import GRDB
import SheetModel

/// The review screen's reads and writes (issue 6), on the statements both backends share
/// (`StoreSQL`). Each write is one `IMMEDIATE` transaction that first bumps the sheet's revision and
/// checks the one the reviewer saw, so of two reviewers writing the same sheet the second gets
/// `ReviewConflict` instead of overwriting the first.
extension SQLiteSheetStore {
    static func bumpRevision(sheetID: Int64, expected: Int?, in db: Database) throws -> Int {
        try StoreSQL.checkRevision(sheetID: sheetID, expected: expected, bumped: try db.int64(StoreSQL.bumpRevision, [.int(sheetID)]))
    }

    public func reviewQueue() async throws -> [SheetSummary] {
        try await read { db in try db.rows(StoreSQL.reviewQueue).map(StoreRows.summary) }
    }

    public func sheetReview(sheetID: Int64) async throws -> SheetReview {
        try await read { db in
            let id: [SQLValue] = [.int(sheetID)]
            guard let row = try db.rows(StoreSQL.sheetSummary, id).first else { throw StoreError("no sheet \(sheetID)") }
            return StoreRows.review(row, readings: try db.rows(StoreSQL.readings, id), corrections: try db.rows(StoreSQL.corrections, id),
                                    gameLog: try db.rows(StoreSQL.gameLogs(sheetID: sheetID).sql, id).first,
                                    decision: try db.rows(StoreSQL.latestDecision, id).first)
        }
    }

    public func undoLastCorrection(_ undo: UndoRequest) async throws -> Correction? {
        try await write { db in
            _ = try Self.bumpRevision(sheetID: undo.sheetID, expected: undo.expectedRevision, in: db)
            guard let id = try db.int64(StoreSQL.lastLiveCorrection, [.int(undo.sheetID)]) else { return nil }
            try db.execute(StoreSQL.undoCorrection, [.text(Timestamp.string(undo.at)), .text(undo.reviewer), .int(id)])
            return try db.rows(StoreSQL.correction, [.int(id)]).first.map(StoreRows.correction)
        }
    }

    public func approveSheet(_ approval: SheetApproval) async throws {
        let reason = try StoreSQL.overrideReason(approval)
        try await write { db in
            let revision = try Self.bumpRevision(sheetID: approval.sheetID, expected: approval.expectedRevision, in: db)
            if let logID = try db.int64(StoreSQL.gameLogIDOfSheet, [.int(approval.sheetID)]) {
                try db.execute(StoreSQL.approveSheetGameLog, StoreSQL.approveSheetGameLogArguments(approval.gameLog, reviewer: approval.reviewer,
                                                                                                   at: approval.at, gameLogID: logID))
                if let draft = approval.gameLog {
                    for sql in StoreSQL.deleteGameLogNumbers { try db.execute(sql, [.int(logID)]) }
                    for (sql, arguments) in StoreSQL.gameLogNumbers(gameLogID: logID, draft) { try db.execute(sql, arguments) }
                }
                try Self.learnNames(gameLogID: logID, in: db)
            }
            try db.execute(StoreSQL.insertDecision, StoreSQL.decisionArguments(.approved, sheetID: approval.sheetID, reviewer: approval.reviewer,
                                                                               at: approval.at, reason: reason, failures: approval.ruleFailures,
                                                                               revision: revision))
        }
    }

    public func rejectSheet(_ rejection: SheetRejection) async throws {
        let reason = try StoreSQL.rejectionReason(rejection)
        try await write { db in
            let revision = try Self.bumpRevision(sheetID: rejection.sheetID, expected: rejection.expectedRevision, in: db)
            try db.execute(StoreSQL.rejectGameLog, [.text("rejected by \(rejection.reviewer): \(reason)"), .int(rejection.sheetID)])
            try db.execute(StoreSQL.insertDecision, StoreSQL.decisionArguments(.rejected, sheetID: rejection.sheetID, reviewer: rejection.reviewer,
                                                                               at: rejection.at, reason: reason, failures: [], revision: revision))
        }
    }

    public func decisions(sheetID: Int64) async throws -> [ReviewDecision] {
        try await read { db in try db.rows(StoreSQL.decisions, [.int(sheetID)]).map(StoreRows.decision) }
    }

    public func cellImage(sheetID: Int64, field: String) async throws -> Data? {
        try await read { db in try db.rows(StoreSQL.cellImage, [.int(sheetID), .text(field)]).first?.data("png") }
    }
}
