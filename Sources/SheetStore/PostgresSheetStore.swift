import Foundation
import Logging
import PostgresNIO
import SheetModel

/// The shared store: one PostgreSQL database that every scanning station and the dashboard use.
/// Each write is one transaction on one leased connection (`PostgresClient.withTransaction`), and
/// uniqueness is the database's to enforce, not a station's look-up:
/// - a sheet is inserted with `ON CONFLICT (sha256, page) DO NOTHING`; the second of two stations inserting
///   the same page of the same file waits for the first's transaction, then finds the row and adds nothing;
/// - the duplicate-game guard runs under a transaction-scoped advisory lock keyed on the game's role,
///   athlete and date (see `lockGame`), so two stations storing two photos of one game cannot both
///   miss the other's log. A unique index cannot say "same game": an unknown context or opponent
///   matches any, and the second log is kept (waiting for review), not refused.
///   SERIALIZABLE with retries would also do, but would retry whole sheets on unrelated conflicts.
public final class PostgresSheetStore: SheetStore {
    public let location: PostgresLocation
    private let client: PostgresClient
    private let running: Task<Void, Never>
    private let logger: Logger
    /// How long an operation may wait before the server is checked with a connection of its own (`watched`).
    private let probeAfter: Duration

    private init(location: PostgresLocation, client: PostgresClient, logger: Logger, probeAfter: Duration) {
        self.location = location
        self.client = client
        self.logger = logger
        self.probeAfter = probeAfter
        running = Task { await client.run() }
    }

    deinit { running.cancel() }

    /// Connects, brings the schema up to date, and starts the connection pool. The first connection
    /// is made directly rather than through the pool, so a server that cannot be reached is reported
    /// at once with its cause (the pool would retry it for a minute and then give no cause).
    ///
    /// - Parameter readingOnly: as a measurement reads a user's store (`statsheet eval --db`): every transaction
    ///   of every connection is read-only on the server (`default_transaction_read_only`), and the schema is
    ///   checked, not migrated: a store at an older schema is refused, saying how to bring it up to date.
    public static func open(_ location: PostgresLocation, probeAfter: Duration = .seconds(3), readingOnly: Bool = false) async throws -> PostgresSheetStore {
        var logger = Logger(label: "statsheet.postgres")
        logger.logLevel = .critical
        let readOnly = readingOnly ? [("default_transaction_read_only", "on")] : []
        let connection: PostgresConnection
        do {
            var configuration = try location.connectionConfiguration()
            configuration.options.additionalStartupParameters += readOnly
            connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        } catch {
            throw PostgresFailure.describe(error, at: location)
        }
        do {
            let session = PostgresSession(connection: connection, logger: logger)
            if readingOnly {
                try await checkSchema(session, store: location.redacted)
            } else {
                try await migrate(session, logger: logger)
            }
            try? await connection.close()
        } catch let error as StoreError {
            try? await connection.close()
            throw error
        } catch {
            try? await connection.close()
            throw PostgresFailure.describe(error, at: location)
        }
        var configuration = try location.clientConfiguration()
        configuration.options.additionalStartupParameters += readOnly
        let client = PostgresClient(configuration: configuration)
        return PostgresSheetStore(location: location, client: client, logger: logger, probeAfter: probeAfter)
    }

    /// Opens the store named by a `postgres://` URL.
    public static func open(url: String) async throws -> PostgresSheetStore {
        try await open(try PostgresLocation(url: url))
    }

    /// Stops the pool and closes its connections.
    public func close() async {
        running.cancel()
        await running.value
    }

    /// Any number: the advisory lock all statsheet processes take while migrating one database.
    static let migrationLock: Int64 = 0x5354_4154_5348_4554

    /// Runs the migrations not yet recorded in `statsheet_migrations`, in one transaction. Two
    /// processes starting at once on a new database queue on the advisory lock: the second finds
    /// the first's migrations recorded and runs none. `last` stops after that migration (tests make a store
    /// as an earlier statsheet left it).
    static func migrate(_ session: PostgresSession, logger: Logger, through last: String? = nil) async throws {
        try await session.connection.withTransaction(logger: logger) { connection in
            let session = PostgresSession(connection: connection, logger: logger)
            try await session.execute("SELECT pg_advisory_xact_lock(?)", [.int(migrationLock)])
            try await session.execute("CREATE TABLE IF NOT EXISTS statsheet_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
            let applied = Set(try await session.rows("SELECT name FROM statsheet_migrations").map { $0.text("name") })
            var migrations = Schema.migrations(.postgres)
            if let last, let end = migrations.firstIndex(where: { $0.name == last }) { migrations = Array(migrations[...end]) }
            for migration in migrations where !applied.contains(migration.name) {
                for statement in migration.statements { try await session.execute(statement) }
                if migration.name == "v4" {
                    for row in try await session.rows(EarlierNotes.untyped) { try await session.execute(EarlierNotes.update, EarlierNotes.arguments(row)) }
                }
                if migration.name == "v5" {
                    for row in try await session.rows(StoreSQL.approvedGameLogIDs) { try await learnNames(gameLogID: row.int64("id") ?? 0, in: session) }
                }
                try await session.execute("INSERT INTO statsheet_migrations (name, applied_at) VALUES (?, ?)",
                                          [.text(migration.name), .text(Timestamp.string(Date()))])
            }
        }
    }

    /// Refuses a database whose schema is older than this statsheet's (`open(_:readingOnly:)`).
    static func checkSchema(_ session: PostgresSession, store: String) async throws {
        let recorded = try await session.rows("SELECT COALESCE(to_regclass('statsheet_migrations')::text, '') AS present").first?.text("present").isEmpty == false
        let applied = recorded ? Set(try await session.rows("SELECT name FROM statsheet_migrations").map { $0.text("name") }) : []
        let wanted = Schema.migrations(.postgres).map(\.name)
        guard Set(wanted).isSubset(of: applied) else {
            throw StoreError.olderSchema(store: store, version: wanted.last(where: applied.contains), current: wanted.last ?? "")
        }
    }

    // MARK: Running operations

    /// One transaction on one leased connection.
    func write<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) async throws -> T) async throws -> T {
        try await watched { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await body(PostgresSession(connection: connection, logger: logger))
            }
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) async throws -> T) async throws -> T {
        try await watched { [client, logger] in
            try await client.withConnection { connection in try await body(PostgresSession(connection: connection, logger: logger)) }
        }
    }

    /// Runs `operation`, turning driver errors into `StoreError`/`StoreUnavailableError`. When the
    /// server goes away, the pool keeps requests waiting while it retries for a minute, and a query
    /// on a connection it has not yet seen die may wait longer; a batch should stop sooner and say
    /// why. So while an operation runs longer than `probeAfter`, the server is tried with a
    /// connection of its own each time; if that fails, the operation is abandoned (not awaited) with
    /// that connection's error, which says what went wrong. The server rolls the abandoned
    /// transaction back.
    private func watched<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await Race.first(operation, unlessFails: { [location, logger, probeAfter] in
                while true {
                    try await Task.sleep(for: probeAfter)
                    let configuration = try location.connectionConfiguration(connectTimeout: .seconds(5))
                    let probe = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                    try? await probe.close()
                }
            })
        } catch {
            var error = error
            if let failed = error as? PostgresTransactionError { error = failed.closureError ?? failed.beginError ?? failed.commitError ?? failed }
            if error is StoreError || error is ReviewConflict { throw error }
            throw PostgresFailure.describe(error, at: location)
        }
    }

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
        return try await write { session in try await Self.record(sheet, policy: policy, replace: replace, in: session) }
    }

    private static func record(_ sheet: NewSheet, policy: ApprovalPolicy, replace: Bool, in session: PostgresSession) async throws -> RecordOutcome {
        let columns = StoreSQL.sheetColumns(sheet)
        let sheetID: Int64
        var replaced = false
        let key = try StoreSQL.key(sheet.key)
        if let id = try await session.int64(StoreSQL.insertSheet(columns: columns.map(\.0)), key + columns.map(\.1)) {
            sheetID = id
        } else {
            let existing = try required(try await session.rows(StoreSQL.sheetByKey, key).first, "stored sheet")
            sheetID = existing.int64("id") ?? 0
            guard replace else {
                return .alreadyStored(sheetID: sheetID, status: SheetStatus(rawValue: existing.text("status")) ?? .needsReview)
            }
            try await session.execute(StoreSQL.updateSheet(columns: columns.map(\.0)), columns.map(\.1) + [.int(sheetID)])
            for statement in StoreSQL.rereadSheet { try await session.execute(statement, [.int(sheetID)]) }
            replaced = true
        }
        func outcome(_ gameLog: GameLogOutcome) -> RecordOutcome {
            replaced ? .replaced(sheetID: sheetID, gameLog: gameLog) : .stored(sheetID: sheetID, gameLog: gameLog)
        }
        for arguments in StoreSQL.readingRows(sheet, sheetID: sheetID) { try await session.execute(StoreSQL.insertReading, arguments) }
        for arguments in StoreSQL.cellImageRows(sheet.cellImages, sheetID: sheetID) { try await session.execute(StoreSQL.insertCellImage, arguments) }
        for arguments in StoreSQL.digitEmbeddingRows(sheet.digitEmbeddings, sheetID: sheetID) {
            try await session.execute(StoreSQL.insertDigitEmbeddings, arguments)
        }
        try await session.execute(StoreSQL.clearFailures, [.text(sheet.path), .text(sheet.sha256), try StoreSQL.page(sheet.page)])

        guard let draft = sheet.gameLog else { return outcome(.none) }
        if let kept = try await session.rows(StoreSQL.gameLogOfSheet, [.int(sheetID)]).first {
            // A re-read keeps a game log a person approved; one made by policy is made again.
            if let approvedBy = kept.string("approved_by"), approvedBy != policy.approver { return outcome(.approved(id: kept.int64("id") ?? 0)) }
            for statement in StoreSQL.deleteGameLog { try await session.execute(statement, [SQLValue(kept.int64("id"))]) }
        }
        try await lockGame(draft.role, athlete: draft.athlete, date: draft.date, in: session)
        let duplicate = try await StoreSQL.duplicateGame(draft).asyncMap { try await session.int64($0.sql, $0.arguments) } ?? nil
        let log = StoreSQL.newGameLog(draft, status: sheet.result.status, policy: policy, duplicate: duplicate, at: sheet.scannedAt)
        let id = try await insertGameLog(log, sheetID: sheetID, duplicateOf: duplicate, in: session)
        try await learnNames(gameLogID: id, in: session)
        return outcome(StoreSQL.outcome(id: id, log))
    }

    /// Adds the names of a game log if it is approved (`StoreSQL.learntNames`); known ones are left as they are.
    static func learnNames(gameLogID: Int64, in session: PostgresSession) async throws {
        guard let log = try await session.rows(StoreSQL.approvedGameLogNames, [.int(gameLogID)]).first else { return }
        let names = StoreSQL.learntNames(log: log, playerLines: try await session.rows(StoreSQL.playerLinesOfGameLog, [.int(gameLogID)]))
        for name in StoreSQL.insertionOrder(names) { try await session.execute(StoreSQL.insertKnownName, StoreSQL.knownNameArguments(name)) }
    }

    /// Holds, until the transaction ends, the lock for one athlete's games on one date: the
    /// duplicate-game look-up and the insert after it are then one step for every station.
    private static func lockGame(_ role: String, athlete: String?, date: String?, in session: PostgresSession) async throws {
        guard let athlete, let date else { return }
        try await session.execute("SELECT pg_advisory_xact_lock(hashtext('statsheet game'), hashtext(?))",
                                  [.text("\(role)|\(athlete.lowercased())|\(date)")])
    }

    static func insertGameLog(_ log: StoredGameLog, sheetID: Int64, duplicateOf: Int64?, in session: PostgresSession) async throws -> Int64 {
        let id = try required(try await session.int64(StoreSQL.insertGameLog, StoreSQL.gameLogArguments(sheetID: sheetID, log, duplicateOf: duplicateOf)), "game log id")
        for (sql, arguments) in StoreSQL.gameLogNumbers(gameLogID: id, log.content) { try await session.execute(sql, arguments) }
        return id
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
            try await Self.learnNames(gameLogID: id, in: session)
        }
    }

    // MARK: Corrections

    public func addCorrection(_ correction: NewCorrection) async throws -> Int64 {
        try await write { session in
            let stored = try StoreSQL.checkedCorrection(
                correction, reading: try await session.rows(StoreSQL.reading, [.int(correction.sheetID), .text(correction.field)]).first)
            _ = try await Self.bumpRevision(sheetID: correction.sheetID, expected: correction.expectedRevision, in: session)
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
            let logID = log?.int64("id")
            var sheet = StoreRows.storedSheet(
                row, readings: try await session.rows(StoreSQL.readings, [.int(id)]),
                corrections: try await session.rows(StoreSQL.corrections, [.int(id)]),
                decisions: try await session.rows(StoreSQL.decisions, [.int(id)]), cellImages: try await session.rows(StoreSQL.cellImages, [.int(id)]),
                gameLog: log,
                numbers: try await logID.asyncMap { id in
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
            for (sql, arguments) in StoreSQL.history(of: sheet, sheetID: sheetID) { try await session.execute(sql, arguments) }
            if let log = sheet.gameLog {
                let duplicate = try await log.duplicateOfSheet.asyncMap { try await session.int64(StoreSQL.gameLogOfSheetKey, try StoreSQL.key($0)) } ?? nil
                let id = try await Self.insertGameLog(log, sheetID: sheetID, duplicateOf: duplicate, in: session)
                try await Self.learnNames(gameLogID: id, in: session)
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
        try await read { session in try await session.rows(StoreSQL.labelledDigits).flatMap(StoreRows.digitExamples) }
    }

    public func seasonGames() async throws -> SeasonGames {
        try await read { session in StoreSQL.seasonGames(try await session.rows(StoreSQL.approvedGameDays)) }
    }
}

/// One leased connection, running the shared statements (`StoreSQL`) with their `?`s numbered.
struct PostgresSession: Sendable {
    let connection: PostgresConnection
    let logger: Logger

    func rows(_ sql: String, _ arguments: [SQLValue] = []) async throws -> [SQLRow] {
        var binds = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .int(let v): binds.append(v)
            case .double(let v): binds.append(v)
            case .text(let v): binds.append(v)
            case .bytes(let v): try binds.append(v)
            case .null: binds.appendNull()
            }
        }
        var rows: [SQLRow] = []
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: Self.numbered(sql), binds: binds), logger: logger) {
            var columns: [String: SQLValue] = [:]
            for cell in row { columns[cell.columnName] = try Self.value(cell) }
            rows.append(SQLRow(columns: columns))
        }
        return rows
    }

    func execute(_ sql: String, _ arguments: [SQLValue] = []) async throws {
        _ = try await rows(sql, arguments)
    }

    /// The first column of the first row, as an integer (an id `RETURNING` gave, say).
    func int64(_ sql: String, _ arguments: [SQLValue]) async throws -> Int64? {
        guard let row = try await rows(sql, arguments).first, let value = row.columns.values.first, case .int(let id) = value else { return nil }
        return id
    }

    /// `?` to `$1`, `$2`…: the shared statements hold no `?` other than placeholders.
    static func numbered(_ sql: String) -> String {
        var result = ""
        var n = 0
        for character in sql {
            if character == "?" {
                n += 1
                result += "$\(n)"
            } else {
                result.append(character)
            }
        }
        return result
    }

    static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .int(try cell.decode(Int64.self))
        case .float4, .float8: return .double(try cell.decode(Double.self))
        case .bool: return .int(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea: return .bytes(try cell.decode(Data.self))
        default: return .text(try cell.decode(String.self))
        }
    }
}

extension Optional {
    /// `map` for an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}

/// A row the statement itself guarantees (an id `RETURNING` gives, a row just found conflicting):
/// absent only if the database misbehaved, which is reported rather than trapped.
func required<T>(_ value: T?, _ what: String) throws -> T {
    guard let value else { throw StoreError("the database returned no \(what)") }
    return value
}

/// An operation and a watchdog run side by side: the operation's result, or the watchdog's error as
/// soon as it throws — without waiting for the operation, which may be stuck on a lost connection
/// and ignore cancellation (a task group would wait for it).
final class Race<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var tasks: [Task<Void, Never>] = []

    static func first(_ operation: @escaping @Sendable () async throws -> T,
                      unlessFails watchdog: @escaping @Sendable () async throws -> Void) async throws -> T {
        let race = Race()
        return try await withCheckedThrowingContinuation { continuation in
            race.lock.withLock { race.continuation = continuation }
            let work = Task { race.finish(await Result(catching: operation)) }
            let watch = Task {
                do { try await watchdog() } catch is CancellationError {} catch { race.finish(.failure(error)) }
            }
            race.lock.withLock { race.tasks = [work, watch] }
            if race.lock.withLock({ race.continuation == nil }) { watch.cancel() }
        }
    }

    private func finish(_ result: Result<T, any Error>) {
        let (continuation, tasks) = lock.withLock {
            defer { self.continuation = nil }
            return (self.continuation, self.tasks)
        }
        guard let continuation else { return }
        for task in tasks { task.cancel() }
        continuation.resume(with: result)
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
