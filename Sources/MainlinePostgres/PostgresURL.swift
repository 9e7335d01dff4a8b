#if Postgres
import Foundation
import PostgresNIO

/// A database to connect to, from one `postgres://user[:password]@host[:port]/database[?sslmode=…]` URL, and both
/// postgres-nio configurations made from it: the pool's (``StreamPublisher``) and a single connection's
/// (``StreamSubscriber``).
///
/// All operations on `PostgresURL` are thread-safe (it is a value).
///
/// The schemes `postgres` and `postgresql`; a user (required), a password, a host (required), a port (5432 unless
/// given) and a database (required); percent-escapes are decoded. Query parameters, as libpq reads them:
/// - `sslmode`: `disable`, `prefer` (the default, as libpq's: TLS when the server offers it), `require` (TLS,
///   certificate not verified), `verify-ca` (TLS, certificate verified against the trusted roots, host name not),
///   `verify-full` (TLS, certificate and host name verified).
/// - `sslrootcert`: a PEM file of the roots to trust, instead of the system's.
/// - `application_name`: the name `pg_stat_activity` shows.
///
/// Any other parameter, an unknown `sslmode` (`allow` included), and a URL without a user, host or database are
/// refused with ``Invalid``, which names what was wrong and never holds the password.
///
/// ```swift
/// let url = try PostgresURL("postgres://orders:secret@db.internal:5432/orders?sslmode=verify-full")
/// let client = PostgresClient(configuration: try url.clientConfiguration())
/// let publisher = StreamPublisher(client: client)
/// let subscriber = StreamSubscriber(configuration: try url.connectionConfiguration())
/// ```
public struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    /// The user to connect as.
    public var user: String
    /// The user's password, if the URL has one.
    public var password: String?
    /// The server's host name or address.
    public var host: String
    /// The server's TCP port (5432 unless the URL says).
    public var port: Int
    /// The database to open.
    public var database: String
    /// Whether and how to use TLS (`sslmode`; ``SSLMode/prefer`` unless the URL says).
    public var sslMode: SSLMode
    /// The PEM file of trusted roots (`sslrootcert`), or `nil` for the system's.
    public var rootCertificatePath: String?
    /// The `application_name` to connect with, if the URL gives one.
    public var applicationName: String?

    /// Whether and how a connection uses TLS: libpq's `sslmode` values, less `allow`.
    ///
    /// All operations on `SSLMode` are thread-safe (it is a value).
    public enum SSLMode: String, Sendable, Hashable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS if the server offers it, without verifying its certificate; plain otherwise.
        case prefer
        /// TLS, without verifying the server's certificate.
        case require
        /// TLS, with the server's certificate verified against the trusted roots (not its host name).
        case verifyCA = "verify-ca"
        /// TLS, with the server's certificate and host name verified.
        case verifyFull = "verify-full"
    }

    /// Why a text is not a URL ``PostgresURL`` can connect with. Never holds the password.
    ///
    /// All operations on `Invalid` are thread-safe (it is a value).
    public enum Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        /// It does not parse as a URL (a port that is not a number makes it so too).
        case notAURL
        /// Its scheme is not `postgres` or `postgresql`; the scheme it has, or `""`.
        case unsupportedScheme(String)
        /// It names no user.
        case missingUser
        /// It names no host.
        case missingHost
        /// It names no database (or its path has more than one segment).
        case missingDatabase
        /// Its port is not from 1 to 65535.
        case portOutOfRange(Int)
        /// A query parameter other than `sslmode`, `sslrootcert` and `application_name`.
        case unsupportedParameter(String)
        /// An `sslmode` that is not one of ``SSLMode``'s.
        case unsupportedSSLMode(String)
        /// It has a fragment (`#…`).
        case fragment
        /// The TLS configuration could not be made (an unreadable `sslrootcert`, say): what NIOSSL said.
        case tlsConfiguration(String)

        /// A readable sentence naming what was wrong.
        public var description: String {
            let expected = "expected postgres://user[:password]@host[:port]/database[?sslmode=…]"
            switch self {
            case .notAURL: return "not a URL (\(expected))"
            case .unsupportedScheme(let scheme):
                return "scheme \(scheme.debugDescription) is not postgres or postgresql (\(expected))"
            case .missingUser: return "the URL names no user (\(expected))"
            case .missingHost: return "the URL names no host (\(expected))"
            case .missingDatabase: return "the URL names no database (\(expected))"
            case .portOutOfRange(let port): return "port \(port) is not from 1 to 65535"
            case .unsupportedParameter(let name):
                return
                    "parameter \(name.debugDescription) is not supported (sslmode, sslrootcert, application_name are)"
            case .unsupportedSSLMode(let mode):
                return "sslmode \(mode.debugDescription) is not supported (disable, prefer, require, verify-ca, "
                    + "verify-full are)"
            case .fragment: return "the URL has a fragment ('#…')"
            case .tlsConfiguration(let reason): return "TLS cannot be set up: \(reason)"
            }
        }
    }

    /// Parses `text`. Thread-safe.
    ///
    /// - Parameter text: `postgres://user[:password]@host[:port]/database[?sslmode=…]`.
    /// - Throws: ``Invalid`` naming what is missing or wrong.
    public init(_ text: String) throws(Invalid) {
        guard let components = URLComponents(string: text) else { throw .notAURL }
        guard let scheme = components.scheme?.lowercased(), ["postgres", "postgresql"].contains(scheme) else {
            throw .unsupportedScheme(components.scheme ?? "")
        }
        guard let user = components.percentEncodedUser, !user.isEmpty else { throw .missingUser }
        guard let host = components.host, !host.isEmpty else { throw .missingHost }
        let path =
            components.percentEncodedPath.hasPrefix("/")
            ? String(components.percentEncodedPath.dropFirst()) : components.percentEncodedPath
        guard !path.isEmpty, !path.contains("/") else { throw .missingDatabase }
        if components.fragment != nil { throw .fragment }
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw .portOutOfRange(port) }
        var sslMode = SSLMode.prefer
        var rootCertificatePath: String?
        var applicationName: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = SSLMode(rawValue: item.value ?? "") else {
                    throw .unsupportedSSLMode(item.value ?? "")
                }
                sslMode = mode
            case "sslrootcert": rootCertificatePath = item.value
            case "application_name": applicationName = item.value
            default: throw .unsupportedParameter(item.name)
            }
        }
        self.user = user.removingPercentEncoding ?? user
        self.password = components.percentEncodedPassword.map { $0.removingPercentEncoding ?? $0 }
        self.host = host
        self.port = port
        self.database = path.removingPercentEncoding ?? path
        self.sslMode = sslMode
        self.rootCertificatePath = rootCertificatePath
        self.applicationName = applicationName
    }

    /// The URL without its password: what to log. Thread-safe.
    public var description: String {
        var query: [String] = ["sslmode=\(sslMode.rawValue)"]
        if let rootCertificatePath { query.append("sslrootcert=\(rootCertificatePath)") }
        if let applicationName { query.append("application_name=\(applicationName)") }
        let secret = password == nil ? "" : ":***"
        return "postgres://\(user)\(secret)@\(host):\(port)/\(database)?\(query.joined(separator: "&"))"
    }

    /// The pool's configuration (`PostgresClient`, what a ``StreamPublisher`` borrows from). Thread-safe.
    ///
    /// - Parameter applicationName: The name its connections have in `pg_stat_activity`; the URL's
    ///   `application_name` when `nil`.
    /// - Returns: The configuration, with the default pool options.
    /// - Throws: ``Invalid/tlsConfiguration(_:)`` when the `sslrootcert` file cannot be read.
    public func clientConfiguration(applicationName: String? = nil) throws(Invalid) -> PostgresClient.Configuration {
        try checkRootCertificate()
        let tls: PostgresClient.Configuration.TLS
        switch sslMode {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(tlsConfiguration())
        case .require, .verifyCA, .verifyFull: tls = .require(tlsConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: host,
            port: port,
            username: user,
            password: password,
            database: database,
            tls: tls
        )
        if let name = applicationName ?? self.applicationName {
            configuration.options.additionalStartupParameters = [("application_name", name)]
        }
        return configuration
    }

    /// A single connection's configuration (`PostgresConnection`, what a ``StreamSubscriber`` listens on).
    /// Thread-safe.
    ///
    /// - Returns: The configuration. The subscriber sets its own `application_name`
    ///   (``StreamSubscriber/Options/applicationName``); the URL's is set here for other uses.
    /// - Throws: ``Invalid/tlsConfiguration(_:)`` when the TLS context cannot be made (unreadable trusted roots).
    public func connectionConfiguration() throws(Invalid) -> PostgresConnection.Configuration {
        try checkRootCertificate()
        let tls: PostgresConnection.Configuration.TLS
        do {
            switch sslMode {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(try NIOSSLContext(configuration: tlsConfiguration()))
            case .require, .verifyCA, .verifyFull: tls = .require(try NIOSSLContext(configuration: tlsConfiguration()))
            }
        } catch {
            throw .tlsConfiguration("\(error)")
        }
        var configuration = PostgresConnection.Configuration(
            host: host,
            port: port,
            username: user,
            password: password,
            database: database,
            tls: tls
        )
        if let applicationName {
            configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        }
        return configuration
    }

    /// Checks that the trusted roots, if the URL names a file of them, can be read.
    private func checkRootCertificate() throws(Invalid) {
        guard sslMode != .disable, let rootCertificatePath else { return }
        guard FileManager.default.isReadableFile(atPath: rootCertificatePath) else {
            throw .tlsConfiguration("sslrootcert \(rootCertificatePath.debugDescription) cannot be read")
        }
    }

    /// The TLS configuration `sslMode` and `rootCertificatePath` ask for.
    private func tlsConfiguration() -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch sslMode {
        case .disable, .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        if let rootCertificatePath { configuration.trustRoots = .file(rootCertificatePath) }
        return configuration
    }
}
#endif
