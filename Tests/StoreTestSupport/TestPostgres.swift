import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL server the tests use: `STATSHEET_TEST_POSTGRES_URL` (`Tools/pg-test-server.sh start`
/// prints it). Without it the PostgreSQL tests are disabled with that reason, unless
/// `STATSHEET_REQUIRE_POSTGRES=1` (set by `.ci/run`): then they run and fail, so CI cannot pass
/// without the server.
public enum TestPostgres {
    public static let url: String? = ProcessInfo.processInfo.environment["STATSHEET_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    public static let required = ProcessInfo.processInfo.environment["STATSHEET_REQUIRE_POSTGRES"] == "1"
    /// Run the PostgreSQL tests: there is a server, or there must be one.
    public static let enabled = url != nil || required
    public static let disabledReason = "no PostgreSQL test server: run `eval \"$(Tools/pg-test-server.sh start)\"` to test the PostgreSQL backend"

    public struct Missing: Error, CustomStringConvertible {
        public init() {}
        public var description: String { "STATSHEET_REQUIRE_POSTGRES=1 but STATSHEET_TEST_POSTGRES_URL is not set: the PostgreSQL tests cannot run" }
    }

    public static func serverURL() throws -> URLComponents {
        guard let url, let components = URLComponents(string: url) else { throw Missing() }
        return components
    }

    /// The test server's password: no output of any command may contain it.
    public static func password() throws -> String { try serverURL().password ?? "" }

    /// The test server's URL with another database, user or password.
    public static func url(database: String, user: String? = nil, password: String? = nil, port: Int? = nil) throws -> String {
        var components = try serverURL()
        components.path = "/" + database
        if let user { components.user = user }
        if let password { components.password = password }
        if let port { components.port = port }
        return components.string!
    }

    /// A new, empty database on the test server; its URL.
    public static func createDatabase() async throws -> String {
        let name = "statsheet_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        _ = try await admin { try await $0.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger) }
        return try url(database: name)
    }

    /// Runs `body` with the URL of a new database, dropped afterwards.
    public static func withDatabase(_ body: (String) async throws -> Void) async throws {
        let url = try await createDatabase()
        do {
            try await body(url)
        } catch {
            try? await dropDatabase(url)
            throw error
        }
        try await dropDatabase(url)
    }

    /// Drops a database `createDatabase` made, closing whatever still uses it.
    public static func dropDatabase(_ url: String) async throws {
        guard let name = URLComponents(string: url)?.path.dropFirst(), name.hasPrefix("statsheet_test_") else { return }
        _ = try await admin { try await $0.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger) }
    }

    /// Runs `sql` on a test database and returns the first column of the first row as an integer.
    public static func count(_ sql: String, in url: String) async throws -> Int {
        try await connected(to: try URLComponents(string: url).unwrapped()) { connection in
            for try await (value) in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Int.self) { return value }
            return 0
        }
    }

    /// `count` without `await`: it blocks the calling thread instead, so a test that polls the store
    /// while a process writes to it is not starved when other tests hold every task thread.
    public static func countBlocking(_ sql: String, in url: String) throws -> Int {
        let components = try URLComponents(string: url).unwrapped()
        let connection = try PostgresConnection.connect(on: PostgresConnection.defaultEventLoopGroup.any(), configuration: configuration(components),
                                                        id: 2, logger: logger).wait()
        defer { try? connection.close().wait() }
        let result = try connection.query(sql).wait()
        return try result.rows.first?.decode(Int.self) ?? 0
    }

    static let logger = Logger(label: "statsheet.test.postgres")

    private static func admin<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await connected(to: try serverURL(), body)
    }

    static func configuration(_ components: URLComponents) -> PostgresConnection.Configuration {
        PostgresConnection.Configuration(
            host: components.host ?? "127.0.0.1", port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password, database: String(components.path.dropFirst()), tls: .disable)
    }

    private static func connected<T>(to components: URLComponents, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await PostgresConnection.connect(configuration: configuration(components), id: 1, logger: logger)
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

extension Optional {
    func unwrapped() throws -> Wrapped {
        guard let self else { throw TestPostgres.Missing() }
        return self
    }
}
