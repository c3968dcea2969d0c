import Foundation
import SheetModel

/// The review screen's reads and writes (issue 6). Each write is one transaction that starts by bumping
/// the sheet's revision (`StoreSession.bumpRevision`) and checks the one the reviewer saw: the update holds
/// the row (SQLite: the whole database) until commit, so of two reviewers writing the same sheet at once the
/// second waits for the first, then gets `ReviewConflict` instead of overwriting it, reloads and sees its change.
extension SQLStore {
    public func reviewQueue() async throws -> [SheetSummary] {
        try await read { session in try await session.rows(StoreSQL.reviewQueue).map(StoreRows.summary) }
    }

    public func sheetReview(sheetID: Int64) async throws -> SheetReview {
        try await read { session in
            let id: [SQLValue] = [.int(sheetID)]
            guard let row = try await session.rows(StoreSQL.sheetSummary, id).first else { throw StoreError("no sheet \(sheetID)") }
            return StoreRows.review(row, readings: try await session.rows(StoreSQL.readings, id),
                                    corrections: try await session.rows(StoreSQL.corrections, id),
                                    gameLog: try await session.rows(StoreSQL.gameLogs(sheetID: sheetID).sql, id).first,
                                    decision: try await session.rows(StoreSQL.latestDecision, id).first)
        }
    }

    public func undoLastCorrection(_ undo: UndoRequest) async throws -> Correction? {
        try await write { session in
            _ = try await session.bumpRevision(sheetID: undo.sheetID, expected: undo.expectedRevision)
            guard let id = try await session.int64(StoreSQL.lastLiveCorrection, [.int(undo.sheetID)]) else { return nil }
            try await session.execute(StoreSQL.undoCorrection, [.text(Timestamp.string(undo.at)), .text(undo.reviewer), .int(id)])
            return try await session.rows(StoreSQL.correction, [.int(id)]).first.map(StoreRows.correction)
        }
    }

    public func approveSheet(_ approval: SheetApproval) async throws {
        let reason = try StoreSQL.overrideReason(approval)
        try await write { session in
            let revision = try await session.bumpRevision(sheetID: approval.sheetID, expected: approval.expectedRevision)
            if let logID = try await session.int64(StoreSQL.gameLogIDOfSheet, [.int(approval.sheetID)]) {
                try await session.execute(StoreSQL.approveSheetGameLog, StoreSQL.approveSheetGameLogArguments(
                    approval.gameLog, reviewer: approval.reviewer, at: approval.at, gameLogID: logID))
                if let draft = approval.gameLog {
                    try await session.execute(StoreSQL.deleteGameLogNumbers.map { ($0, [.int(logID)]) } + StoreSQL.gameLogNumbers(gameLogID: logID, draft))
                }
                try await session.learnNames(gameLogID: logID)
            }
            try await session.execute(StoreSQL.insertDecision, StoreSQL.decisionArguments(
                .approved, sheetID: approval.sheetID, reviewer: approval.reviewer, at: approval.at, reason: reason,
                failures: approval.ruleFailures, revision: revision))
        }
    }

    public func rejectSheet(_ rejection: SheetRejection) async throws {
        let reason = try StoreSQL.rejectionReason(rejection)
        try await write { session in
            let revision = try await session.bumpRevision(sheetID: rejection.sheetID, expected: rejection.expectedRevision)
            try await session.execute(StoreSQL.rejectGameLog, [.text("rejected by \(rejection.reviewer): \(reason)"), .int(rejection.sheetID)])
            try await session.execute(StoreSQL.insertDecision, StoreSQL.decisionArguments(
                .rejected, sheetID: rejection.sheetID, reviewer: rejection.reviewer, at: rejection.at, reason: reason, failures: [],
                revision: revision))
        }
    }

    public func decisions(sheetID: Int64) async throws -> [ReviewDecision] {
        try await read { session in try await session.rows(StoreSQL.decisions, [.int(sheetID)]).map(StoreRows.decision) }
    }

    public func cellImage(sheetID: Int64, field: String) async throws -> Data? {
        try await read { session in try await session.rows(StoreSQL.cellImage, [.int(sheetID), .text(field)]).first?.data("png") }
    }
}
