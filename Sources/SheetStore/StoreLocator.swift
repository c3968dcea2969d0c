import Foundation

/// A store named the way the CLI's `--db` and `STATSHEET_DB` name one: a `postgres://` or
/// `postgresql://` URL is a PostgreSQL store, anything else a SQLite file's path.
public enum StoreLocator {
    public static func isPostgres(_ name: String) -> Bool { PostgresLocation.isURL(name) }

    /// How output names the store: the path, or the URL with its password redacted.
    public static func displayName(_ name: String) -> String {
        guard isPostgres(name) else { return name }
        return (try? PostgresLocation(url: name).redacted) ?? "postgres://(unreadable URL)"
    }

    /// Opens (creating the schema if needed) the store `name` names.
    public static func open(_ name: String) async throws -> any SheetStore {
        if isPostgres(name) { return try await PostgresSheetStore.open(try PostgresLocation(url: name)) }
        return try SQLiteSheetStore(path: name)
    }

    /// For commands that only read: a SQLite file that is not there is an error, not a new empty
    /// store. (A PostgreSQL database must exist already; the schema is made on first use.)
    public static func openExisting(_ name: String) async throws -> any SheetStore {
        if !isPostgres(name) && !FileManager.default.fileExists(atPath: name) {
            throw StoreError("no store at \(name): run 'statsheet scan' first, or give --db")
        }
        return try await open(name)
    }

    /// For measurements (`statsheet eval --db`): the store as it is, opened so that nothing can be written to it
    /// and never migrated; one at an older schema is an error saying how to bring it up to date.
    public static func openReadingOnly(_ name: String) async throws -> any SheetStore {
        if isPostgres(name) { return try await PostgresSheetStore.open(try PostgresLocation(url: name), readingOnly: true) }
        return try SQLiteSheetStore(readingOnly: name)
    }

    /// Lets go of the store's connections (a PostgreSQL pool); nothing to do for SQLite.
    public static func close(_ store: any SheetStore) async {
        if let store = store as? PostgresSheetStore { await store.close() }
    }
}
