import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import _ConnectionPoolModule

/// Driver errors as one line a person can act on: which server (its URL with the password
/// redacted), what went wrong (the server's own message, or the network's), and what to check.
/// `PSQLError`'s description hides the detail on purpose, so its fields are read here instead.
enum PostgresFailure {
    static func describe(_ error: any Error, at location: PostgresLocation) -> any Error {
        if let error = error as? StoreError { return error }
        if let error = error as? StoreUnavailableError { return error }
        let text: (what: String, check: String?, unavailable: Bool) = classify(error, at: location)
        var line = (text.unavailable ? "cannot use the PostgreSQL store " : "PostgreSQL store ") + location.redacted + ": " + text.what
        if let check = text.check { line += " — check " + check }
        // Belt and braces: no message, the server's included, ever carries the password.
        if let password = location.password, !password.isEmpty { line = line.replacingOccurrences(of: password, with: "***") }
        return text.unavailable ? StoreUnavailableError(line) : StoreError(line)
    }

    private static func classify(_ error: any Error, at location: PostgresLocation) -> (String, String?, Bool) {
        let address = "\(location.host):\(location.port)"
        let running = "that the server is running and accepts TCP connections on \(address) (listen_addresses, port, firewall)"
        let lost = "that the server is running; what was stored is kept, so run the same command again to finish"
        if let error = error as? PSQLError {
            switch error.code {
            case .server:
                return server(error, at: location)
            case .connectionError:
                return (network(error.underlying), isDNS(error.underlying) ? "the host name \(location.host)" : running, true)
            case .serverClosedConnection, .uncleanShutdown:
                return ("the server closed the connection", lost, true)
            case .clientClosedConnection, .poolClosed:
                return ("the connection was closed", lost, true)
            case .sslUnsupported:
                return ("the server does not accept TLS connections", "sslmode in the URL (prefer or disable), or turn on ssl on the server", true)
            case .failedToAddSSLHandler:
                return ("TLS could not be set up: \(network(error.underlying))", "sslmode and sslrootcert in the URL", true)
            case .authMechanismRequiresPassword:
                return ("the server asks for a password and the URL gives none", "the URL: postgres://user:password@host/database", true)
            case .unsupportedAuthMechanism, .saslError:
                return ("the server's login method cannot be used: \(error.underlying.map(network) ?? "\(error.code)")",
                        "pg_hba.conf on the server (scram-sha-256, md5 or password)", true)
            default:
                return ("\(error.code)" + (error.underlying.map { ": " + network($0) } ?? ""), nil, false)
            }
        }
        if let error = error as? ConnectionPoolError {
            let what = error == .connectionCreationCircuitBreakerTripped ? "no connection could be made for a minute" : "the connection pool is shut down"
            return (what, lost, true)
        }
        if error is NIOSSLError || error is BoringSSLError {
            return ("TLS failed: \(error)", "sslmode and sslrootcert in the URL, and the server's certificate", true)
        }
        if error is NIOConnectionError || error is IOError || error is ChannelError {
            return (network(error), isDNS(error) ? "the host name \(location.host)" : running, true)
        }
        return ("\(error)", nil, false)
    }

    /// An error the server sent: its message, detail and hint, and for login failures what to check.
    private static func server(_ error: PSQLError, at location: PostgresLocation) -> (String, String?, Bool) {
        let info = error.serverInfo
        let state = info?[.sqlState] ?? ""
        var what = info?[.message] ?? "the server refused the request"
        if let detail = info?[.detail] { what += " (\(detail))" }
        if let hint = info?[.hint] { what += "; hint: \(hint)" }
        switch state {
        case "28P01":
            return (what, "the user name and password in the URL", true)
        case "28000":
            return (what, "that pg_hba.conf on the server lets user \(location.user) reach database \(location.database) from this machine, and sslmode", true)
        case "3D000":
            return (what, "the database name in the URL, or create it (createdb \(location.database))", true)
        case "57P01", "57P02", "57P03", "08006", "08003", "08000":
            return (what, "that the server is running; what was stored is kept, so run the same command again to finish", true)
        case "53300":
            return (what, "max_connections on the server", true)
        default:
            return (state.isEmpty ? what : "\(what) [SQLSTATE \(state)]", nil, false)
        }
    }

    /// The network's reason, in words (`connection refused`), not the error type's dump.
    private static func network(_ error: (any Error)?) -> String {
        switch error {
        case nil: return "the connection failed"
        case let error as NIOConnectionError:
            if let first = error.connectionErrors.first { return network(first.error) }
            if error.dnsAError != nil || error.dnsAAAAError != nil { return "the host name could not be resolved" }
            return "the connection failed"
        case let error as IOError:
            return String(cString: strerror(error.errnoCode)).lowercased()
        case let error as ChannelError:
            if case .connectTimeout(let timeout) = error { return "no answer within \(timeout.nanoseconds / 1_000_000_000) s" }
            return "\(error)"
        case let error as SocketAddressError:
            if case .unknown = error { return "the host name could not be resolved" }
            return "\(error)"
        case let error?:
            return "\(error)"
        }
    }

    private static func isDNS(_ error: (any Error)?) -> Bool {
        if let error = error as? NIOConnectionError { return error.connectionErrors.isEmpty && (error.dnsAError != nil || error.dnsAAAAError != nil) }
        if let error = error as? SocketAddressError, case .unknown = error { return true }
        return false
    }
}
