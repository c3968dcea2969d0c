import Foundation
import GRDB
import SheetModel

/// The embedded store: one SQLite file in WAL mode. Several processes may share it: every write is
/// an `IMMEDIATE` transaction (writers queue on SQLite's lock, waiting up to `busyTimeout`), and a
/// sheet is inserted with `ON CONFLICT (sha256, page) DO NOTHING`, so the second of two processes that
/// read the same file finds it stored and adds nothing.
public final class SQLiteSheetStore: SQLStore {
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
                    for row in try db.rows(StoreSQL.approvedGameLogIDs) { try learnNames(gameLogID: row.int64("id") ?? 0, in: db) }
                }
            }
        }
        return migrator
    }()

    /// `StoreSession.learnNames` for the migration that first learnt names (v5). GRDB runs a migration on
    /// its caller's thread, which may be one of Swift's pool that a session's task would wait for
    /// (`SQLiteSession`), so the migration takes the same steps synchronously.
    private static func learnNames(gameLogID: Int64, in db: Database) throws {
        guard let log = try db.rows(StoreSQL.approvedGameLogNames, [.int(gameLogID)]).first else { return }
        let names = StoreSQL.learntNames(log: log, playerLines: try db.rows(StoreSQL.playerLinesOfGameLog, [.int(gameLogID)]))
        for name in StoreSQL.insertionOrder(names) { try db.execute(StoreSQL.insertKnownName, StoreSQL.knownNameArguments(name)) }
    }

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

    func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteSession) async throws -> T) async throws -> T {
        try await described {
            try await pool.writeWithoutTransaction { db in
                var value: T?
                try db.inTransaction(.immediate) {
                    value = try SQLiteSession.serve(db, body)
                    return .commit
                }
                return value!
            }
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteSession) async throws -> T) async throws -> T {
        try await described { try await pool.read { db in try SQLiteSession.serve(db, body) } }
    }

    /// Runs `access`, saying which store a database error came from; the store's own errors pass as they are.
    private func described<T>(_ access: () async throws -> T) async throws -> T {
        do {
            return try await access()
        } catch let error as StoreError {
            throw error
        } catch let error as ReviewConflict {
            throw error
        } catch {
            throw StoreError("store \(path): \(Self.describe(error))")
        }
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
