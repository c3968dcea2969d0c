import Foundation
import NIOCore
import NIOSSL
import PostgresNIO

/// A PostgreSQL store's address, parsed from a `postgres://` or `postgresql://` URL:
/// `postgres://user:password@host:port/database?sslmode=disable|allow|prefer|require|verify-ca|verify-full`
/// (`sslrootcert=/path/ca.pem` names the certificate authority to trust). The password is kept for
/// connecting only: everything shown to a person uses `redacted`.
public struct PostgresLocation: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var sslMode: SSLMode
    public var sslRootCert: String?

    /// libpq's modes, with libpq's meaning: `prefer` (the default) tries TLS and falls back to plain;
    /// `require` insists on TLS but, like libpq, checks no certificate; `verify-ca` checks the chain;
    /// `verify-full` checks the chain and that the certificate names the host.
    public enum SSLMode: String, Sendable, CaseIterable {
        case disable, allow, prefer, require, verifyCA = "verify-ca", verifyFull = "verify-full"
    }

    /// True for the strings this parses (and only those): the CLI's `--db` is a URL or a SQLite path.
    public static func isURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    public init(url text: String) throws {
        // Errors here must not echo `text`: it may hold the password.
        guard Self.isURL(text), let url = URLComponents(string: text) else {
            throw StoreError("not a PostgreSQL URL; expected postgres://user:password@host:port/database")
        }
        guard let host = url.host, !host.isEmpty else { throw StoreError("the PostgreSQL URL names no host") }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = url.port ?? 5432
        user = url.user ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        password = url.password
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        database = path.isEmpty ? user : path
        var mode = SSLMode.prefer
        for item in url.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let value = item.value.flatMap(SSLMode.init(rawValue:)) else {
                    throw StoreError("sslmode must be one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                mode = value
            case "sslrootcert":
                sslRootCert = item.value
            default:
                throw StoreError("unknown PostgreSQL URL parameter '\(item.name)'; known: sslmode, sslrootcert")
            }
        }
        sslMode = mode
    }

    /// The URL with the password replaced by `***`: the only form of it any output shows.
    public var redacted: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        let credentials = user + (password == nil ? "" : ":***")
        let query = sslMode == .prefer ? "" : "?sslmode=\(sslMode.rawValue)"
        return "postgres://\(credentials)@\(hostPart):\(port)/\(database)\(query)"
    }

    /// The pool's configuration: TLS as `sslmode` asks.
    func clientConfiguration() throws -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS = switch try tlsConfiguration() {
        case nil: .disable
        case (let configuration, let enforced)?: enforced ? .require(configuration) : .prefer(configuration)
        }
        var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
        // A station stores one sheet at a time: a few connections are plenty, and a club's server
        // serves several stations.
        configuration.options.maximumConnections = 4
        return configuration
    }

    /// One connection's configuration, for opening the store and checking that the server is there.
    func connectionConfiguration(connectTimeout: TimeAmount = .seconds(10)) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS = switch try tlsConfiguration() {
        case nil: .disable
        case (let configuration, let enforced)?:
            enforced ? .require(try NIOSSLContext(configuration: configuration)) : .prefer(try NIOSSLContext(configuration: configuration))
        }
        var configuration = PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = connectTimeout
        return configuration
    }

    /// NIOSSL's settings for `sslmode`/`sslrootcert`, and whether TLS is required; nil for `disable`.
    func tlsConfiguration() throws -> (TLSConfiguration, enforced: Bool)? {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch sslMode {
        case .disable: return nil
        case .allow, .prefer, .require: tls.certificateVerification = .none
        case .verifyCA: tls.certificateVerification = .noHostnameVerification
        case .verifyFull: tls.certificateVerification = .fullVerification
        }
        if let sslRootCert {
            guard FileManager.default.isReadableFile(atPath: sslRootCert) else {
                throw StoreError("sslrootcert \(sslRootCert) cannot be read")
            }
            tls.trustRoots = .file(sslRootCert)
            // libpq: `require` with a root certificate verifies the chain, as verify-ca does.
            if sslMode == .require { tls.certificateVerification = .noHostnameVerification }
        }
        return (tls, enforced: sslMode != .allow && sslMode != .prefer)
    }
}
