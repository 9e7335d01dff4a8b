import Foundation
import PostgresNIO

/// A database to connect to, from a `postgres://user[:password]@host[:port]/database` URL: what `--postgres` takes.
///
/// All operations on `PostgresURL` are thread-safe (it is a value).
///
/// postgres-nio (1.33) parses no URLs (PostgresKit does), so this is the small parser the server needs: the schemes
/// `postgres` and `postgresql`, a user (required), a password, a host (required), a port (5432 unless given) and a
/// database (required); percent-escapes are decoded. It connects without TLS, so a query such as `?sslmode=require`
/// is refused rather than ignored.
///
/// ```swift
/// let url = try PostgresURL(parsing: "postgres://postgres@127.0.0.1:5432/mainline")
/// let client = PostgresClient(configuration: url.clientConfiguration)
/// ```
struct PostgresURL: Sendable, Equatable {
    /// The user to connect as.
    var user: String
    /// The user's password, if the URL has one.
    var password: String?
    /// The server's host name or address.
    var host: String
    /// The server's TCP port (5432 unless the URL says).
    var port: Int
    /// The database to open.
    var database: String

    /// Why a `--postgres` value is not a URL the server can use. The description says what is wrong.
    ///
    /// All operations on `Invalid` are thread-safe (it is a value).
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    /// Parses `text`.
    ///
    /// - Parameter text: `postgres://user[:password]@host[:port]/database`.
    /// - Throws: ``Invalid`` naming what is missing or wrong.
    init(parsing text: String) throws(Invalid) {
        guard let components = URLComponents(string: text) else {
            throw Invalid(description: "it is not a URL")
        }
        guard let scheme = components.scheme?.lowercased(), ["postgres", "postgresql"].contains(scheme) else {
            throw Invalid(description: "it must start with postgres://")
        }
        guard let user = components.user, !user.isEmpty else {
            throw Invalid(description: "it names no user (postgres://user@host/database)")
        }
        guard let host = components.host, !host.isEmpty else {
            throw Invalid(description: "it names no host")
        }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.isEmpty, !path.contains("/") else {
            throw Invalid(description: "it names no database (postgres://user@host/database)")
        }
        if let query = components.query {
            throw Invalid(description: "parameters ('?\(query)') are not supported; the server connects without TLS")
        }
        if components.fragment != nil {
            throw Invalid(description: "it has a fragment ('#…')")
        }
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else {
            throw Invalid(description: "its port must be from 1 to 65535")
        }
        // URLComponents keeps percent-escapes in `user`/`password`/`path`; the percent-encoded forms decode them.
        self.user = components.percentEncodedUser?.removingPercentEncoding ?? user
        self.password = components.percentEncodedPassword.map { $0.removingPercentEncoding ?? $0 }
        self.host = host
        self.port = port
        self.database = path.removingPercentEncoding ?? path
    }

    /// The pool's configuration (no TLS), its connections named `applicationName` in `pg_stat_activity`.
    func clientConfiguration(applicationName: String) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host,
            port: port,
            username: user,
            password: password,
            database: database,
            tls: .disable
        )
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        return configuration
    }

    /// A single connection's configuration (no TLS): what a `StreamSubscriber` listens on.
    var connectionConfiguration: PostgresConnection.Configuration {
        PostgresConnection.Configuration(
            host: host,
            port: port,
            username: user,
            password: password,
            database: database,
            tls: .disable
        )
    }
}
