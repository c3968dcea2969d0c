import Foundation
import SheetModel

/// One connection inside one transaction (or one read), as the operations both backends share
/// (`SQLStore`) see it: the shared statements (`StoreSQL`, `?` placeholders) in, `SQLRow`s out. What is
/// left to each backend is its dialect: how a statement reaches the database, and how a game is locked.
/// Async, because PostgreSQL's driver is; SQLite's synchronous connection serves it from its own thread
/// (`SQLiteSession`).
protocol StoreSession: Sendable {
    /// Runs one statement and returns its rows (none for most writes).
    func rows(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow]

    /// Runs statements in order. A backend may send them at once: SQLite's connection thread runs them
    /// in one visit, not one visit each.
    func execute(_ statements: [(String, [SQLValue])]) async throws

    /// Holds, until the transaction ends, the lock that makes the duplicate-game look-up of `draft` and the
    /// insert after it one step for every process (`SQLStore.record`).
    func lockGame(_ draft: GameLogDraft) async throws
}

extension StoreSession {
    func rows(_ sql: String) async throws -> [SQLRow] { try await rows(sql, []) }

    func execute(_ sql: String, _ arguments: [SQLValue] = []) async throws { try await execute([(sql, arguments)]) }

    /// The first column of the first row, as an integer (an id `RETURNING` gave, say): the statements
    /// read so return one column.
    func int64(_ sql: String, _ arguments: [SQLValue]) async throws -> Int64? {
        guard let row = try await rows(sql, arguments).first, let value = row.columns.values.first, case .int(let id) = value else { return nil }
        return id
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

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
