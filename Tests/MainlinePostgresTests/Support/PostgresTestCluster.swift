#if Postgres
import Foundation
import Logging
import PostgresNIO
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL cluster for one test: `initdb` into a temporary folder, a free port, `pg_ctl start`, one
/// database; stopped and deleted by ``with(_:)`` however the test ends.
///
/// `initdb` refuses to run as root, so when the tests run as root the server's commands run as the `postgres` user
/// (`runuser -u postgres --`), which owns the folder. Durability is off (`fsync`, `synchronous_commit`): the data
/// is thrown away anyway, and commits are what the tests wait on most.
///
/// Not thread-safe for ``start()``/``stop()`` (one test drives it); the rest is immutable.
final class PostgresTestCluster: Sendable {
    let directory: String
    let port: Int
    let database = "mainline"
    private let runAs: [String]

    struct CommandFailed: Error, CustomStringConvertible {
        var command: [String]
        var result: ChildProcess.Result
        var description: String {
            let output = result.standardError + result.standardOutput
            return "\(command.joined(separator: " ")) exited with \(result.status): \(output)"
        }
    }

    /// Runs `body` with a started cluster holding an empty database, then stops and deletes the cluster, also when
    /// `body` throws.
    @MainActor
    static func with<T>(_ body: @MainActor (PostgresTestCluster) async throws -> T) async throws -> T {
        let cluster = try await PostgresTestCluster()
        let result: T
        do {
            try await cluster.start()
            try await cluster.withConnection(database: "postgres") { connection in
                let create = PostgresQuery(unsafeSQL: "CREATE DATABASE \(cluster.database)")
                _ = try await connection.query(create, logger: Logger(label: "test.admin"))
            }
            result = try await body(cluster)
        } catch {
            await cluster.destroy()
            throw error
        }
        await cluster.destroy()
        return result
    }

    private init() async throws {
        var template = Array("/tmp/mainline-pg.XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        directory = String(cString: made)
        port = try Self.freePort()
        if geteuid() == 0 {
            runAs = ["runuser", "-u", "postgres", "--"]
            guard let user = getpwnam("postgres") else { throw POSIXError(.ENOENT) }
            chown(directory, user.pointee.pw_uid, user.pointee.pw_gid)
        } else {
            runAs = []
        }
        try await run([
            "initdb", "-D", "\(directory)/data", "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8",
        ])
    }

    /// Starts the server (again) on the same port; returns when it accepts connections.
    func start() async throws {
        let settings = [
            "-p \(port)", "-k \(directory)", "-c listen_addresses=127.0.0.1", "-c fsync=off",
            "-c synchronous_commit=off", "-c full_page_writes=off", "-c max_connections=40",
        ]
        try await run([
            "pg_ctl", "-D", "\(directory)/data", "-l", "\(directory)/server.log", "-w", "-t", "60", "-o",
            settings.joined(separator: " "), "start",
        ])
    }

    /// Stops the server (`-m fast`: sessions are ended, as on a database restart).
    func stop() async throws {
        try await run(["pg_ctl", "-D", "\(directory)/data", "-m", "fast", "-w", "-t", "60", "stop"])
    }

    /// Stops the server at once, if it runs, and deletes the folder.
    private func destroy() async {
        try? await run(["pg_ctl", "-D", "\(directory)/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    var configuration: PostgresConnection.Configuration {
        PostgresConnection.Configuration(
            host: "127.0.0.1",
            port: port,
            username: "postgres",
            password: nil,
            database: database,
            tls: .disable
        )
    }

    /// Runs `body` on a connection of its own, closed afterwards.
    func withConnection<T>(
        isolation: isolated (any Actor)? = #isolation,
        database: String? = nil,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        var configuration = configuration
        if let database { configuration.database = database }
        let connection = try await PostgresConnection.connect(
            configuration: configuration,
            id: 0,
            logger: Logger(label: "test.admin")
        )
        do {
            let result = try await body(connection)
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Runs `sql` (one statement, no result) on a connection of its own.
    func execute(_ sql: String) async throws {
        try await withConnection { connection in
            _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "test.admin"))
        }
    }

    /// Ends every backend whose `application_name` is `name`; returns how many it ended.
    func terminateBackends(applicationName name: String) async throws -> Int {
        try await withConnection { connection in
            let rows = try await connection.query(
                """
                SELECT count(*) FROM (
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = \(name)
                ) t
                """,
                logger: Logger(label: "test.admin")
            )
            var count = 0
            for try await value in rows.decode(Int64.self) { count = Int(value) }
            return count
        }
    }

    /// The server process serving the session whose `application_name` is `name`.
    func backendProcessID(applicationName name: String) async throws -> pid_t {
        try await withConnection { connection in
            let rows = try await connection.query(
                "SELECT pid FROM pg_stat_activity WHERE application_name = \(name)",
                logger: Logger(label: "test.admin")
            )
            var pids: [Int32] = []
            for try await pid in rows.decode(Int32.self) { pids.append(pid) }
            guard pids.count == 1 else { throw NoSuchBackend(applicationName: name, found: pids.count) }
            return pids[0]
        }
    }

    struct NoSuchBackend: Error {
        var applicationName: String
        var found: Int
    }

    /// Where the server's programs are: `$MAINLINE_POSTGRES_BIN`; else `PATH`, when `initdb` is on it; else the newest
    /// `/usr/lib/postgresql/<version>/bin` (Debian's `postgresql` package keeps `initdb` and `pg_ctl` off `PATH`).
    private static let serverBinaries: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let folder = environment["MAINLINE_POSTGRES_BIN"] { return folder }
        let onPath = (environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/initdb")
        }
        if onPath { return nil }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.compactMap(Int.init).max().map { "/usr/lib/postgresql/\($0)/bin" }
    }()

    private func run(_ command: [String]) async throws {
        var command = command
        if let folder = Self.serverBinaries, ["initdb", "pg_ctl"].contains(command[0]) {
            command[0] = "\(folder)/\(command[0])"
        }
        let full = runAs + command
        let result = try await ChildProcess.run(full[0], Array(full.dropFirst()), searchPath: true)
        guard result.status == 0 else { throw CommandFailed(command: full, result: result) }
    }

    /// A TCP port nothing listens on now (the kernel's pick for port 0).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
#endif
