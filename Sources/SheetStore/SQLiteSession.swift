import Foundation
import GRDB
import SheetModel

/// A GRDB connection lent to the shared async operations (`SQLStore`). GRDB lends a connection only to
/// a synchronous closure, on the connection's own thread; so the closure starts the operation as a task
/// and serves the task's statements on that thread, one at a time, until it ends (`serve`). The
/// connection is never used elsewhere, and the closure's transaction holds all the statements.
///
/// The serving thread waits for a task on Swift's pool: it must be one of GRDB's own (its async `read`
/// and `write` run there), never one of the pool's, which could all be waiting so and leave the task no
/// thread. Migrations, which GRDB runs on the caller's thread, do not use sessions for that reason.
final class SQLiteSession: StoreSession, @unchecked Sendable {
    private let condition = NSCondition()
    /// Statements waiting for the connection's thread, and whether the operation has ended: both
    /// guarded by `condition`.
    private var waiting: [@Sendable (Database) -> Void] = []
    private var ended = false

    private init() {}

    /// Runs `body` against `db`, serving its statements on this thread until it returns or throws.
    static func serve<T: Sendable>(_ db: Database, _ body: @escaping @Sendable (SQLiteSession) async throws -> T) throws -> T {
        let session = SQLiteSession()
        let outcome = Outcome<T>()
        Task {
            let result = await Result { try await body(session) }
            session.condition.withLock {
                outcome.result = result
                session.ended = true
                session.condition.signal()
            }
        }
        while let statement = session.next() { statement(db) }
        return try session.condition.withLock { outcome.result! }.get()
    }

    func rows(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
        try await onConnection { db in try db.rows(sql, arguments) }
    }

    func execute(_ statements: [(String, [SQLValue])]) async throws {
        try await onConnection { db in for (sql, arguments) in statements { try db.execute(sql, arguments) } }
    }

    /// Nothing to take: a write is an `IMMEDIATE` transaction, which holds SQLite's one write lock.
    func lockGame(_ draft: GameLogDraft) async throws {}

    private func onConnection<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            condition.withLock {
                waiting.append { db in continuation.resume(with: Result { try work(db) }) }
                condition.signal()
            }
        }
    }

    /// The next statement to run, waiting for one; nil once the operation has ended.
    private func next() -> (@Sendable (Database) -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty && !ended { condition.wait() }
        if waiting.isEmpty { return nil }
        return waiting.removeFirst()
    }

    /// The operation's result, handed from its task to the serving thread under `condition`.
    private final class Outcome<T>: @unchecked Sendable {
        var result: Result<T, any Error>?
    }
}
