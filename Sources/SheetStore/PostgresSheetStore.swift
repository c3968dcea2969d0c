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
///   athlete and date (`PostgresSession.lockGame`), so two stations storing two photos of one game cannot both
///   miss the other's log. A unique index cannot say "same game": an unknown context or opponent
///   matches any, and the second log is kept (waiting for review), not refused.
///   SERIALIZABLE with retries would also do, but would retry whole sheets on unrelated conflicts.
public final class PostgresSheetStore: SQLStore {
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
                    for row in try await session.rows(StoreSQL.approvedGameLogIDs) { try await session.learnNames(gameLogID: row.int64("id") ?? 0) }
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
}

/// One leased connection, running the shared statements (`StoreSQL`) with their `?`s numbered.
struct PostgresSession: StoreSession {
    let connection: PostgresConnection
    let logger: Logger

    func rows(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
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

    func execute(_ statements: [(String, [SQLValue])]) async throws {
        for (sql, arguments) in statements { _ = try await rows(sql, arguments) }
    }

    /// An advisory lock for one athlete's games on one date, held until the transaction ends: two stations'
    /// transactions may run at once, and would otherwise both miss the other's log.
    func lockGame(_ draft: GameLogDraft) async throws {
        guard let athlete = draft.athlete, let date = draft.date else { return }
        try await execute("SELECT pg_advisory_xact_lock(hashtext('statsheet game'), hashtext(?))", [.text("\(draft.role)|\(athlete.lowercased())|\(date)")])
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
