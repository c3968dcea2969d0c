import Foundation
import SheetModel

/// A store on an SQL database: every operation of `SheetStore`, written once over a `StoreSession`.
/// A backend gives only its sessions — how a transaction is begun, committed and retried, and how
/// its driver's errors read — and its dialect, inside the session.
protocol SQLStore: SheetStore {
    associatedtype Session: StoreSession

    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws.
    func write<T: Sendable>(_ body: @escaping @Sendable (Session) async throws -> T) async throws -> T
    /// Runs `body` on one connection, to read.
    func read<T: Sendable>(_ body: @escaping @Sendable (Session) async throws -> T) async throws -> T
}

extension SQLStore {
    // MARK: Sheets

    public func storedSheets() async throws -> [SheetKey: StoredSheetState] {
        try await read { session in
            var states: [SheetKey: StoredSheetState] = [:]
            for row in try await session.rows(StoreSQL.storedSheets) { states[StoreRows.key(row)] = StoreRows.state(row) }
            return states
        }
    }

    public func record(_ sheet: NewSheet, policy: ApprovalPolicy, replace: Bool) async throws -> RecordOutcome {
        guard sheet.result.status != .failed else { throw StoreError("a failed reading is recorded with recordFailure, not stored as a sheet") }
        return try await write { session in try await session.record(sheet, policy: policy, replace: replace) }
    }

    public func recordFailure(_ failure: NewFailure) async throws {
        let arguments = try StoreSQL.recordFailureArguments(failure)
        try await write { session in try await session.execute(StoreSQL.recordFailure, arguments) }
    }

    public func restoreFailure(_ failure: FailureRecord) async throws {
        let arguments = try StoreSQL.restoreFailureArguments(failure)
        try await write { session in try await session.execute(StoreSQL.restoreFailure, arguments) }
    }

    public func sheets(status: SheetStatus?) async throws -> [SheetSummary] {
        let query = StoreSQL.sheets(status: status)
        return try await read { session in try await session.rows(query.sql, query.arguments).map(StoreRows.summary) }
    }

    public func failures() async throws -> [FailureRecord] {
        try await read { session in try await session.rows(StoreSQL.failures).map(StoreRows.failure) }
    }

    public func readings(sheetID: Int64) async throws -> [StoredReading] {
        try await read { session in try await session.rows(StoreSQL.readings, [.int(sheetID)]).map(StoreRows.reading) }
    }

    // MARK: Game logs

    public func goalieGameLogs(_ filter: GameLogFilter) async throws -> [GoalieGameLog] {
        let query = StoreSQL.goalieGameLogs(filter)
        return try await read { session in try await session.rows(query.sql, query.arguments).map(StoreRows.goalieGameLog) }
    }

    public func boxScoreLines(_ filter: GameLogFilter) async throws -> [BoxScoreLine] {
        let query = StoreSQL.boxScoreLines(filter)
        return try await read { session in try await session.rows(query.sql, query.arguments).map(StoreRows.boxScoreLine) }
    }

    public func gameLogs(sheetID: Int64?) async throws -> [GameLogSummary] {
        let query = StoreSQL.gameLogs(sheetID: sheetID)
        return try await read { session in try await session.rows(query.sql, query.arguments).map(StoreRows.gameLogSummary) }
    }

    public func approveGameLog(id: Int64, by reviewer: String, at time: Date) async throws {
        try await write { session in
            let changed = try await session.rows(StoreSQL.approveGameLog + " RETURNING id", [.text(Timestamp.string(time)), .text(reviewer), .int(id)])
            if changed.isEmpty { throw StoreError("no game log \(id)") }
            try await session.learnNames(gameLogID: id)
        }
    }

    // MARK: Corrections

    public func addCorrection(_ correction: NewCorrection) async throws -> Int64 {
        try await write { session in
            let stored = try StoreSQL.checkedCorrection(
                correction, reading: try await session.rows(StoreSQL.reading, [.int(correction.sheetID), .text(correction.field)]).first)
            _ = try await session.bumpRevision(sheetID: correction.sheetID, expected: correction.expectedRevision)
            let arguments = StoreSQL.correctionArguments(sheetID: correction.sheetID, field: correction.field, original: stored.reading,
                                                         newValue: correction.newValue, reviewer: correction.reviewer, at: correction.at,
                                                         note: correction.note)
            return try required(try await session.int64(StoreSQL.insertCorrection, arguments), "correction id")
        }
    }

    public func corrections(sheetID: Int64) async throws -> [Correction] {
        try await read { session in try await session.rows(StoreSQL.corrections, [.int(sheetID)]).map(StoreRows.correction) }
    }

    public func allCorrections() async throws -> [Correction] {
        try await read { session in try await session.rows(StoreSQL.allCorrections).map(StoreRows.correction) }
    }

    public func flaggedReadings() async throws -> [FlaggedReading] {
        try await read { session in try await session.rows(StoreSQL.flaggedReadings).map(StoreRows.flaggedReading) }
    }

    // MARK: Copying

    public func storedSheet(id: Int64) async throws -> StoredSheet {
        try await read { session in
            guard let row = try await session.rows(StoreSQL.sheetByID, [.int(id)]).first else { throw StoreError("no sheet \(id)") }
            let log = try await session.rows(StoreSQL.gameLogs(sheetID: id).sql, [.int(id)]).first
            var sheet = StoreRows.storedSheet(
                row, readings: try await session.rows(StoreSQL.readings, [.int(id)]),
                corrections: try await session.rows(StoreSQL.corrections, [.int(id)]),
                decisions: try await session.rows(StoreSQL.decisions, [.int(id)]), cellImages: try await session.rows(StoreSQL.cellImages, [.int(id)]),
                gameLog: log,
                numbers: try await log?.int64("id").asyncMap { id in
                    var rows: [[SQLRow]] = []
                    for query in StoreSQL.gameLogNumberQueries { rows.append(try await session.rows(query, [.int(id)])) }
                    return rows
                } ?? [],
                duplicateOfSheet: try await log?.int64("duplicate_of").asyncMap {
                    try await session.rows(StoreSQL.duplicateSheetKey, [.int($0)]).first.map(StoreRows.key)
                } ?? nil)
            sheet.digitEmbeddings = try await session.rows(StoreSQL.digitEmbeddings, [.int(id)]).compactMap(StoreRows.digitEmbeddings)
            return sheet
        }
    }

    public func insert(_ sheet: StoredSheet) async throws -> Bool {
        try await write { session in
            let columns = StoreRows.columns(sheet)
            guard let sheetID = try await session.int64(StoreSQL.insertSheet(columns: columns.map(\.0)), try StoreSQL.key(sheet.key) + columns.map(\.1))
            else { return false }
            try await session.execute(StoreSQL.history(of: sheet, sheetID: sheetID))
            if let log = sheet.gameLog {
                let duplicate = try await log.duplicateOfSheet.asyncMap { try await session.int64(StoreSQL.gameLogOfSheetKey, try StoreSQL.key($0)) } ?? nil
                try await session.learnNames(gameLogID: try await session.insertGameLog(log, sheetID: sheetID, duplicateOf: duplicate))
            }
            return true
        }
    }

    // MARK: Known names

    public func addKnownNames(_ names: [StoredKnownName]) async throws -> Int {
        try await write { session in
            var added = 0
            for name in StoreSQL.insertionOrder(names) where try await session.int64(StoreSQL.insertKnownName, StoreSQL.knownNameArguments(name)) != nil {
                added += 1
            }
            return added
        }
    }

    public func knownNames(kind: NameKind?) async throws -> [StoredKnownName] {
        let query = StoreSQL.knownNames(kind: kind)
        return try await read { session in
            try await session.rows(query.sql, query.arguments).map(StoreRows.knownName).sorted(by: StoredKnownName.listOrder)
        }
    }

    // MARK: Digit examples

    public func digitExamples() async throws -> [DigitExample] {
        try await read { session in
            // A person's labels first: they are kept first when the examples are more than the reader keeps.
            try await session.rows(StoreSQL.labelledDigits).flatMap { StoreRows.digitExamples($0, source: .person) }
                + session.rows(StoreSQL.balancedDigits, [.double(DigitExample.balancedSheetBar), .int(Int64(DigitExample.mostKept))])
                    .flatMap { StoreRows.digitExamples($0, source: .balancedSheet) }
        }
    }

    public func seasonGames() async throws -> SeasonGames {
        try await read { session in StoreSQL.seasonGames(try await session.rows(StoreSQL.approvedGameDays)) }
    }
}

/// The steps of the operations above that more than one of them takes, inside its transaction.
extension StoreSession {
    func record(_ sheet: NewSheet, policy: ApprovalPolicy, replace: Bool) async throws -> RecordOutcome {
        let columns = StoreSQL.sheetColumns(sheet)
        let sheetID: Int64
        var replaced = false
        let key = try StoreSQL.key(sheet.key)
        if let id = try await int64(StoreSQL.insertSheet(columns: columns.map(\.0)), key + columns.map(\.1)) {
            sheetID = id
        } else {
            let existing = try required(try await rows(StoreSQL.sheetByKey, key).first, "stored sheet")
            sheetID = existing.int64("id") ?? 0
            guard replace else {
                return .alreadyStored(sheetID: sheetID, status: SheetStatus(rawValue: existing.text("status")) ?? .needsReview)
            }
            try await execute([(StoreSQL.updateSheet(columns: columns.map(\.0)), columns.map(\.1) + [.int(sheetID)])]
                              + StoreSQL.rereadSheet.map { ($0, [.int(sheetID)]) })
            replaced = true
        }
        func outcome(_ gameLog: GameLogOutcome) -> RecordOutcome {
            replaced ? .replaced(sheetID: sheetID, gameLog: gameLog) : .stored(sheetID: sheetID, gameLog: gameLog)
        }
        try await execute(StoreSQL.readingRows(sheet, sheetID: sheetID).map { (StoreSQL.insertReading, $0) }
                          + StoreSQL.cellImageRows(sheet.cellImages, sheetID: sheetID).map { (StoreSQL.insertCellImage, $0) }
                          + StoreSQL.digitEmbeddingRows(sheet.digitEmbeddings, sheetID: sheetID).map { (StoreSQL.insertDigitEmbeddings, $0) }
                          + [(StoreSQL.clearFailures, [.text(sheet.path), .text(sheet.sha256), try StoreSQL.page(sheet.page)])])

        guard let draft = sheet.gameLog else { return outcome(.none) }
        if let kept = try await rows(StoreSQL.gameLogOfSheet, [.int(sheetID)]).first {
            // A re-read keeps a game log a person approved; one made by policy is made again.
            if let approvedBy = kept.string("approved_by"), approvedBy != policy.approver { return outcome(.approved(id: kept.int64("id") ?? 0)) }
            try await execute(StoreSQL.deleteGameLog.map { ($0, [SQLValue(kept.int64("id"))]) })
        }
        try await lockGame(draft)
        let duplicate = try await StoreSQL.duplicateGame(draft).asyncMap { try await int64($0.sql, $0.arguments) } ?? nil
        let log = StoreSQL.newGameLog(draft, status: sheet.result.status, policy: policy, duplicate: duplicate, at: sheet.scannedAt)
        let id = try await insertGameLog(log, sheetID: sheetID, duplicateOf: duplicate)
        try await learnNames(gameLogID: id)
        return outcome(StoreSQL.outcome(id: id, log))
    }

    /// Adds the names of a game log if it is approved (`StoreSQL.learntNames`); known ones are left as they are.
    func learnNames(gameLogID: Int64) async throws {
        guard let log = try await rows(StoreSQL.approvedGameLogNames, [.int(gameLogID)]).first else { return }
        let names = StoreSQL.learntNames(log: log, playerLines: try await rows(StoreSQL.playerLinesOfGameLog, [.int(gameLogID)]))
        try await execute(StoreSQL.insertionOrder(names).map { (StoreSQL.insertKnownName, StoreSQL.knownNameArguments($0)) })
    }

    func insertGameLog(_ log: StoredGameLog, sheetID: Int64, duplicateOf: Int64?) async throws -> Int64 {
        let id = try required(try await int64(StoreSQL.insertGameLog, StoreSQL.gameLogArguments(sheetID: sheetID, log, duplicateOf: duplicateOf)), "game log id")
        try await execute(StoreSQL.gameLogNumbers(gameLogID: id, log.content))
        return id
    }

    /// Bumps the sheet's revision and checks the one the reviewer saw (`StoreSQL.bumpRevision`).
    func bumpRevision(sheetID: Int64, expected: Int?) async throws -> Int {
        try StoreSQL.checkRevision(sheetID: sheetID, expected: expected, bumped: try await int64(StoreSQL.bumpRevision, [.int(sheetID)]))
    }
}
