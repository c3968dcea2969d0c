import Foundation
import GRDB
import SheetModel

/// The embedded store: one SQLite file in WAL mode. Several processes may share it: every write is
/// an `IMMEDIATE` transaction (writers queue on SQLite's lock, waiting up to `busyTimeout`), and a
/// sheet is inserted with `ON CONFLICT (sha256, page) DO NOTHING`, so the second of two processes that
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
        // Opening switches a new file to WAL and writes a first page to the log. A second process
        // opening the same new file at that moment gets SQLITE_BUSY at once: SQLite does not wait
        // on its busy handler there (measured: two scans into one new store, 5 of 20 failed so).
        // Trying again a moment later finds WAL in place.
        do {
            pool = try Self.retrying(while: Self.isBusy) { try DatabasePool(path: path, configuration: configuration) }
        } catch {
            throw StoreError("cannot open the store \(path): \(Self.describe(error))")
        }
        self.path = path
        // Two processes opening a new store at once both see no migration applied; the second's
        // `CREATE TABLE` then fails after waiting for the first. Trying again finds the schema in place.
        do {
            try Self.retrying(attempts: 5, while: { _ in true }) { try Self.migrator.migrate(pool) }
        } catch {
            throw StoreError("cannot prepare the store \(path): \(Self.describe(error))")
        }
    }

    /// Opens the store at `path` to read only, as a measurement reads a user's store (`statsheet eval --db`):
    /// SQLite opens the file read-only, so nothing is written to it, not even a migration. A store at an older
    /// schema than this statsheet's is refused, named with its version and the command that brings it up to
    /// date, rather than read through queries it cannot answer.
    public init(readingOnly path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw StoreError("no store at \(path): run 'statsheet scan' first, or give --db") }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.foreignKeysEnabled = true
        configuration.label = "statsheet.store.read-only"
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw StoreError("cannot open the store \(path) to read: \(Self.describe(error))")
        }
        self.path = path
        let applied: Set<String>
        do {
            applied = try pool.read { db in try Self.migrator.appliedIdentifiers(db) }
        } catch {
            throw StoreError("cannot read the store \(path): \(Self.describe(error))")
        }
        let wanted = Schema.migrations(.sqlite).map(\.name)
        guard Set(wanted).isSubset(of: applied) else {
            throw StoreError.olderSchema(store: path, version: wanted.last(where: applied.contains), current: wanted.last ?? "")
        }
    }

    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        for migration in Schema.migrations(.sqlite) {
            // Foreign keys are off while a migration runs and checked before it commits (GRDB's default,
            // `.deferred`): version 7 rebuilds `sheets`, which every other table refers to.
            migrator.registerMigration(migration.name, foreignKeyChecks: .deferred) { db in
                for statement in migration.statements { try db.execute(sql: statement) }
                if migration.name == "v4" {
                    for row in try db.rows(EarlierNotes.untyped) { try db.execute(EarlierNotes.update, EarlierNotes.arguments(row)) }
                }
                if migration.name == "v5" {
                    for row in try db.rows(StoreSQL.approvedGameLogIDs) { try SQLiteSheetStore.learnNames(gameLogID: row.int64("id") ?? 0, in: db) }
                }
            }
        }
        return migrator
    }()

    /// Runs `body`, trying again after a short, growing pause while it fails with an error
    /// `shouldRetry` accepts, at most `attempts` times in all.
    static func retrying<T>(attempts: Int = 12, while shouldRetry: (any Error) -> Bool,
                            _ body: () throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try body()
            } catch where attempt < attempts && shouldRetry(error) {
                Thread.sleep(forTimeInterval: 0.05 * Double(attempt))
                attempt += 1
            }
        }
    }

    static func isBusy(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
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

    public func storedSheets() async throws -> [SheetKey: StoredSheetState] {
        try await read { db in
            var states: [SheetKey: StoredSheetState] = [:]
            for row in try db.rows(StoreSQL.storedSheets) { states[StoreRows.key(row)] = StoreRows.state(row) }
            return states
        }
    }

    public func record(_ sheet: NewSheet, policy: ApprovalPolicy, replace: Bool) async throws -> RecordOutcome {
        guard sheet.result.status != .failed else { throw StoreError("a failed reading is recorded with recordFailure, not stored as a sheet") }
        return try await write { db in try Self.record(sheet, policy: policy, replace: replace, in: db) }
    }

    private static func record(_ sheet: NewSheet, policy: ApprovalPolicy, replace: Bool, in db: Database) throws -> RecordOutcome {
        let columns = StoreSQL.sheetColumns(sheet)
        let sheetID: Int64
        var replaced = false
        let key = try StoreSQL.key(sheet.key)
        if let id = try db.int64(StoreSQL.insertSheet(columns: columns.map(\.0)), key + columns.map(\.1)) {
            sheetID = id
        } else {
            let existing = try required(try db.rows(StoreSQL.sheetByKey, key).first, "stored sheet")
            sheetID = existing.int64("id") ?? 0
            guard replace else {
                return .alreadyStored(sheetID: sheetID, status: SheetStatus(rawValue: existing.text("status")) ?? .needsReview)
            }
            try db.execute(StoreSQL.updateSheet(columns: columns.map(\.0)), columns.map(\.1) + [.int(sheetID)])
            for statement in StoreSQL.rereadSheet { try db.execute(statement, [.int(sheetID)]) }
            replaced = true
        }
        func outcome(_ gameLog: GameLogOutcome) -> RecordOutcome {
            replaced ? .replaced(sheetID: sheetID, gameLog: gameLog) : .stored(sheetID: sheetID, gameLog: gameLog)
        }
        for arguments in StoreSQL.readingRows(sheet, sheetID: sheetID) { try db.execute(StoreSQL.insertReading, arguments) }
        for arguments in StoreSQL.cellImageRows(sheet.cellImages, sheetID: sheetID) { try db.execute(StoreSQL.insertCellImage, arguments) }
        for arguments in StoreSQL.digitEmbeddingRows(sheet.digitEmbeddings, sheetID: sheetID) { try db.execute(StoreSQL.insertDigitEmbeddings, arguments) }
        try db.execute(StoreSQL.clearFailures, [.text(sheet.path), .text(sheet.sha256), try StoreSQL.page(sheet.page)])

        guard let draft = sheet.gameLog else { return outcome(.none) }
        if let kept = try db.rows(StoreSQL.gameLogOfSheet, [.int(sheetID)]).first {
            // A re-read keeps a game log a person approved; one made by policy is made again.
            if let approvedBy = kept.string("approved_by"), approvedBy != policy.approver { return outcome(.approved(id: kept.int64("id") ?? 0)) }
            for statement in StoreSQL.deleteGameLog { try db.execute(statement, [SQLValue(kept.int64("id"))]) }
        }
        // The IMMEDIATE transaction holds SQLite's one write lock: the duplicate look-up and the
        // insert after it are one step for every process.
        let duplicate = try StoreSQL.duplicateGame(draft).map { try db.int64($0.sql, $0.arguments) } ?? nil
        let log = StoreSQL.newGameLog(draft, status: sheet.result.status, policy: policy, duplicate: duplicate, at: sheet.scannedAt)
        let id = try insertGameLog(log, sheetID: sheetID, duplicateOf: duplicate, in: db)
        try learnNames(gameLogID: id, in: db)
        return outcome(StoreSQL.outcome(id: id, log))
    }

    /// Adds the names of a game log if it is approved (`StoreSQL.learntNames`); known ones are left as they are.
    static func learnNames(gameLogID: Int64, in db: Database) throws {
        guard let log = try db.rows(StoreSQL.approvedGameLogNames, [.int(gameLogID)]).first else { return }
        let names = StoreSQL.learntNames(log: log, playerLines: try db.rows(StoreSQL.playerLinesOfGameLog, [.int(gameLogID)]))
        for name in StoreSQL.insertionOrder(names) { _ = try db.int64(StoreSQL.insertKnownName, StoreSQL.knownNameArguments(name)) }
    }

    private static func insertGameLog(_ log: StoredGameLog, sheetID: Int64, duplicateOf: Int64?, in db: Database) throws -> Int64 {
        let id = try required(try db.int64(StoreSQL.insertGameLog, StoreSQL.gameLogArguments(sheetID: sheetID, log, duplicateOf: duplicateOf)), "game log id")
        for (sql, arguments) in StoreSQL.gameLogNumbers(gameLogID: id, log.content) { try db.execute(sql, arguments) }
        return id
    }

    public func recordFailure(_ failure: NewFailure) async throws {
        let arguments = try StoreSQL.recordFailureArguments(failure)
        try await write { db in try db.execute(StoreSQL.recordFailure, arguments) }
    }

    public func restoreFailure(_ failure: FailureRecord) async throws {
        let arguments = try StoreSQL.restoreFailureArguments(failure)
        try await write { db in try db.execute(StoreSQL.restoreFailure, arguments) }
    }

    public func sheets(status: SheetStatus?) async throws -> [SheetSummary] {
        let query = StoreSQL.sheets(status: status)
        return try await read { db in try db.rows(query.sql, query.arguments).map(StoreRows.summary) }
    }

    public func failures() async throws -> [FailureRecord] {
        try await read { db in try db.rows(StoreSQL.failures).map(StoreRows.failure) }
    }

    public func readings(sheetID: Int64) async throws -> [StoredReading] {
        try await read { db in try db.rows(StoreSQL.readings, [.int(sheetID)]).map(StoreRows.reading) }
    }

    // MARK: Game logs

    public func goalieGameLogs(_ filter: GameLogFilter) async throws -> [GoalieGameLog] {
        let query = StoreSQL.goalieGameLogs(filter)
        return try await read { db in try db.rows(query.sql, query.arguments).map(StoreRows.goalieGameLog) }
    }

    public func boxScoreLines(_ filter: GameLogFilter) async throws -> [BoxScoreLine] {
        let query = StoreSQL.boxScoreLines(filter)
        return try await read { db in try db.rows(query.sql, query.arguments).map(StoreRows.boxScoreLine) }
    }

    public func gameLogs(sheetID: Int64?) async throws -> [GameLogSummary] {
        let query = StoreSQL.gameLogs(sheetID: sheetID)
        return try await read { db in try db.rows(query.sql, query.arguments).map(StoreRows.gameLogSummary) }
    }

    public func approveGameLog(id: Int64, by reviewer: String, at time: Date) async throws {
        try await write { db in
            try db.execute(StoreSQL.approveGameLog, [.text(Timestamp.string(time)), .text(reviewer), .int(id)])
            if db.changesCount == 0 { throw StoreError("no game log \(id)") }
            try Self.learnNames(gameLogID: id, in: db)
        }
    }

    // MARK: Corrections

    public func addCorrection(_ correction: NewCorrection) async throws -> Int64 {
        try await write { db in
            let stored = try StoreSQL.checkedCorrection(correction, reading: try db.rows(StoreSQL.reading, [.int(correction.sheetID), .text(correction.field)]).first)
            _ = try Self.bumpRevision(sheetID: correction.sheetID, expected: correction.expectedRevision, in: db)
            let arguments = StoreSQL.correctionArguments(sheetID: correction.sheetID, field: correction.field, original: stored.reading,
                                                         newValue: correction.newValue, reviewer: correction.reviewer, at: correction.at,
                                                         note: correction.note)
            return try required(try db.int64(StoreSQL.insertCorrection, arguments), "correction id")
        }
    }

    public func corrections(sheetID: Int64) async throws -> [Correction] {
        try await read { db in try db.rows(StoreSQL.corrections, [.int(sheetID)]).map(StoreRows.correction) }
    }

    public func allCorrections() async throws -> [Correction] {
        try await read { db in try db.rows(StoreSQL.allCorrections).map(StoreRows.correction) }
    }

    public func flaggedReadings() async throws -> [FlaggedReading] {
        try await read { db in try db.rows(StoreSQL.flaggedReadings).map(StoreRows.flaggedReading) }
    }

    // MARK: Copying

    public func storedSheet(id: Int64) async throws -> StoredSheet {
        try await read { db in
            guard let row = try db.rows(StoreSQL.sheetByID, [.int(id)]).first else { throw StoreError("no sheet \(id)") }
            let log = try db.rows(StoreSQL.gameLogs(sheetID: id).sql, [.int(id)]).first
            var sheet = StoreRows.storedSheet(
                row, readings: try db.rows(StoreSQL.readings, [.int(id)]), corrections: try db.rows(StoreSQL.corrections, [.int(id)]),
                decisions: try db.rows(StoreSQL.decisions, [.int(id)]), cellImages: try db.rows(StoreSQL.cellImages, [.int(id)]), gameLog: log,
                numbers: try log?.int64("id").map { id in try StoreSQL.gameLogNumberQueries.map { try db.rows($0, [.int(id)]) } } ?? [],
                duplicateOfSheet: try log?.int64("duplicate_of").map { try db.rows(StoreSQL.duplicateSheetKey, [.int($0)]).first.map(StoreRows.key) } ?? nil)
            sheet.digitEmbeddings = try db.rows(StoreSQL.digitEmbeddings, [.int(id)]).compactMap(StoreRows.digitEmbeddings)
            return sheet
        }
    }

    public func insert(_ sheet: StoredSheet) async throws -> Bool {
        try await write { db in
            let columns = StoreRows.columns(sheet)
            guard let sheetID = try db.int64(StoreSQL.insertSheet(columns: columns.map(\.0)), try StoreSQL.key(sheet.key) + columns.map(\.1))
            else { return false }
            for (sql, arguments) in StoreSQL.history(of: sheet, sheetID: sheetID) { try db.execute(sql, arguments) }
            if let log = sheet.gameLog {
                let duplicate = try log.duplicateOfSheet.map { try db.int64(StoreSQL.gameLogOfSheetKey, try StoreSQL.key($0)) } ?? nil
                try Self.learnNames(gameLogID: try Self.insertGameLog(log, sheetID: sheetID, duplicateOf: duplicate, in: db), in: db)
            }
            return true
        }
    }

    // MARK: Known names

    public func addKnownNames(_ names: [StoredKnownName]) async throws -> Int {
        try await write { db in
            try StoreSQL.insertionOrder(names).reduce(0) { added, name in
                added + (try db.int64(StoreSQL.insertKnownName, StoreSQL.knownNameArguments(name)) == nil ? 0 : 1)
            }
        }
    }

    public func knownNames(kind: NameKind?) async throws -> [StoredKnownName] {
        let query = StoreSQL.knownNames(kind: kind)
        return try await read { db in try db.rows(query.sql, query.arguments).map(StoreRows.knownName).sorted(by: StoredKnownName.listOrder) }
    }

    // MARK: Digit examples

    public func digitExamples() async throws -> [DigitExample] {
        try await read { db in try db.rows(StoreSQL.labelledDigits).flatMap(StoreRows.digitExamples) }
    }

    public func seasonGames() async throws -> SeasonGames {
        try await read { db in StoreSQL.seasonGames(try db.rows(StoreSQL.approvedGameDays)) }
    }
}

extension Database {
    /// Runs a shared statement (`StoreSQL`) and reads its rows the way both backends do.
    func rows(_ sql: String, _ arguments: [SQLValue] = []) throws -> [SQLRow] {
        try Row.fetchAll(self, sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue))).map { row in
            var columns: [String: SQLValue] = [:]
            for (name, value) in row {
                columns[name] = switch value.storage {
                case .null: .null
                case .int64(let v): .int(v)
                case .double(let v): .double(v)
                case .string(let v): .text(v)
                case .blob(let v): .bytes(v)
                }
            }
            return SQLRow(columns: columns)
        }
    }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws {
        try execute(sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue)))
    }

    /// The first column of the first row, as an integer (an id `RETURNING` gave, say).
    func int64(_ sql: String, _ arguments: [SQLValue]) throws -> Int64? {
        try Int64.fetchOne(self, sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue)))
    }
}

extension SQLValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .int(let v): v.databaseValue
        case .double(let v): v.databaseValue
        case .text(let v): v.databaseValue
        case .bytes(let v): v.databaseValue
        case .null: .null
        }
    }
}
