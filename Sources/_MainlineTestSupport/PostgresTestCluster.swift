import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A throwaway PostgreSQL cluster for one test: `initdb` into a temporary folder, a free port, `pg_ctl start`, one
/// database; stopped and deleted by ``with(_:)`` however the test ends — and, should the test process itself end
/// first (a trap, `SIGKILL`, `exit`), by a reaper process that outlives it just long enough (`_Reaper`, beside this
/// file, says how).
///
/// Not API: `_MainlineTestSupport` serves Mainline's own tests, examples and benchmarks, and may change in any release.
///
/// It needs only the server's programs (`initdb`, `pg_ctl`, `psql`; Debian's `postgresql` package), not a driver:
/// administration (creating the database, ending sessions) goes through `psql`, so the examples' and benchmarks'
/// tests use it without linking postgres-nio. Code under test connects to ``url`` or to ``host``/``port``/``database``
/// as user ``user``, with no password (`--auth=trust`) and no TLS.
///
/// `initdb` refuses to run as root, so when the tests run as root the server's commands run as the `postgres` user
/// (`runuser -u postgres --`), which owns the folder. Durability is off (`fsync`, `synchronous_commit`): the data
/// is thrown away anyway, and commits are what the tests wait on most.
///
/// Not thread-safe for ``start()``/``stop()`` (one test drives them); the rest is immutable and thread-safe.
///
/// ```swift
/// try await PostgresTestCluster.with { cluster in
///     try await cluster.execute("CREATE TABLE t (x int)")
///     let server = try ChildProcess(serverPath, ["--postgres", cluster.url])
/// }
/// ```
public final class PostgresTestCluster: Sendable {
    /// The cluster's folder (data, socket, `server.log`); deleted at the end.
    public let directory: String
    /// The TCP port it listens on, on 127.0.0.1.
    public let port: Int
    /// The host it listens on.
    public let host = "127.0.0.1"
    /// The database ``with(_:)`` creates, empty.
    public let database = "mainline"
    /// The superuser to connect as, with no password.
    public let user = "postgres"
    private let runAs: [String]
    /// Stops the server and deletes the folder when ``with(_:)`` is done, or when the process ends first.
    private let reaper: _Reaper

    /// The process id of the cluster's reaper, which stops the server and deletes ``directory`` once the test process
    /// is done with the cluster or has ended: for tests of this support. Gone when ``with(_:)`` returns.
    public var reaperProcessID: pid_t { reaper.processID }

    /// `postgres://postgres@127.0.0.1:<port>/mainline`: the database as a URL, for programs that take one.
    public var url: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    /// A server command that exited with a failure.
    public struct CommandFailed: Error, CustomStringConvertible {
        /// The command, with its arguments.
        public var command: [String]
        /// How it ended and what it printed.
        public var result: ChildProcess.Result
        /// The end of the server's log when the command was `pg_ctl start` (the folder is deleted afterwards, so the
        /// reason a server did not start is kept here); `nil` otherwise.
        public var serverLog: String? = nil
        /// The command, its output, and the end of the server's log if there is one.
        public var description: String {
            let output = result.standardError + result.standardOutput
            let log = serverLog.map { "\nserver.log:\n\($0)" } ?? ""
            return "\(command.joined(separator: " ")) exited with \(result.status): \(output)\(log)"
        }

        /// Whether the server could not start because another process holds its port.
        var portWasTaken: Bool { serverLog?.contains("Address already in use") ?? false }
    }

    /// ``backendProcessID(applicationName:)`` found no session of that name, or more than one.
    public struct NoSuchBackend: Error {
        /// The `application_name` looked for.
        public var applicationName: String
        /// How many sessions had it.
        public var found: Int
    }

    /// Runs `body` with a started cluster holding an empty database (``database``), then stops and deletes the
    /// cluster, also when `body` throws. Call it from the main actor.
    @MainActor
    public static func with<T>(_ body: @MainActor (PostgresTestCluster) async throws -> T) async throws -> T {
        let cluster = try await started()
        let result: T
        do {
            result = try await body(cluster)
        } catch {
            await cluster.destroy()
            throw error
        }
        await cluster.destroy()
        return result
    }

    /// A new cluster, started, with ``database`` created. A port that another process took between ``freePort()`` and
    /// the server's `bind` (its log says "Address already in use") costs a new cluster on another port, up to five
    /// times; any other failure is thrown at once, with the server's log.
    private static func started() async throws -> PostgresTestCluster {
        var attempt = 1
        while true {
            let cluster = try PostgresTestCluster()
            do {
                try await cluster.run([
                    "initdb", "-D", "\(cluster.directory)/data", "-U", cluster.user, "--auth=trust", "--no-sync", "-E",
                    "UTF8",
                ])
                try await cluster.start()
                try await cluster.psql("CREATE DATABASE \(cluster.database)", database: "postgres")
                return cluster
            } catch let failure as CommandFailed where failure.portWasTaken && attempt < 5 {
                await cluster.destroy()
                attempt += 1
            } catch {
                await cluster.destroy()
                throw error
            }
        }
    }

    /// Makes the folder and starts its reaper at once, so nothing that can fail comes between the two.
    private init() throws {
        port = try Self.freePort()
        var owner: (uid_t, gid_t)?
        if geteuid() == 0 {
            runAs = ["runuser", "-u", "postgres", "--"]
            guard let user = getpwnam("postgres") else { throw POSIXError(.ENOENT) }
            owner = (user.pointee.pw_uid, user.pointee.pw_gid)
        } else {
            runAs = []
        }
        var template = Array("/tmp/mainline-pg.XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        directory = String(cString: made)
        do {
            reaper = try _Reaper(directory: directory, stopCommand: runAs + [Self.serverProgram("pg_ctl")])
        } catch {
            rmdir(directory)
            throw error
        }
        if let (uid, gid) = owner { chown(directory, uid, gid) }
    }

    /// Starts the server (again) on the same port; returns when it accepts connections.
    public func start() async throws {
        let settings = [
            "-p \(port)", "-k \(directory)", "-c listen_addresses=\(host)", "-c fsync=off",
            "-c synchronous_commit=off", "-c full_page_writes=off", "-c max_connections=60",
        ]
        do {
            try await run([
                "pg_ctl", "-D", "\(directory)/data", "-l", "\(directory)/server.log", "-w", "-t", "60", "-o",
                settings.joined(separator: " "), "start",
            ])
        } catch var failure as CommandFailed {
            // The log says why (a port taken, shared memory, …) and goes with the folder: keep its end in the error.
            let log = (try? String(contentsOfFile: "\(directory)/server.log", encoding: .utf8)) ?? "(no server.log)"
            failure.serverLog = log.split(separator: "\n", omittingEmptySubsequences: false).suffix(20)
                .joined(separator: "\n")
            throw failure
        }
    }

    /// Stops the server (`-m fast`: sessions are ended, as on a database restart).
    public func stop() async throws {
        try await run(["pg_ctl", "-D", "\(directory)/data", "-m", "fast", "-w", "-t", "60", "stop"])
    }

    /// Stops the server at once, if it runs, and deletes the folder: the reaper's work, done now.
    private func destroy() async {
        await reaper.release()
    }

    /// The server's process id (the postmaster's), from the first line of its `postmaster.pid`; `nil` when the
    /// server does not run (no such file).
    public func serverProcessID() -> pid_t? {
        guard let text = try? String(contentsOfFile: "\(directory)/data/postmaster.pid", encoding: .utf8) else {
            return nil
        }
        return text.split(whereSeparator: \.isNewline).first.flatMap { pid_t($0) }
    }

    /// Runs `sql` with `psql` on a session of its own and returns what it printed: unaligned rows, one per line, with
    /// `|` between columns, and no header.
    ///
    /// - Parameters:
    ///   - sql: One or more statements; the first error stops it and throws.
    ///   - database: The database to connect to; ``database`` when `nil`.
    /// - Throws: ``CommandFailed`` with `psql`'s output when a statement fails.
    @discardableResult
    public func psql(_ sql: String, database: String? = nil) async throws -> String {
        try await run([
            "psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", "\(port)", "-U", user, "-d",
            database ?? self.database, "-c", sql,
        ])
    }

    /// Runs `sql` (statements with no result) on a session of its own.
    public func execute(_ sql: String) async throws {
        try await psql(sql)
    }

    /// Ends every session whose `application_name` is `name` (`pg_terminate_backend`); returns how many it ended.
    public func terminateBackends(applicationName name: String) async throws -> Int {
        let output = try await psql(
            """
            SELECT count(*) FROM (
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = \(Self.literal(name))
            ) t
            """
        )
        return Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// The server process serving the one session whose `application_name` is `name`.
    ///
    /// - Throws: ``NoSuchBackend`` when no session, or more than one, has that name.
    public func backendProcessID(applicationName name: String) async throws -> pid_t {
        let output = try await psql(
            "SELECT pid FROM pg_stat_activity WHERE application_name = \(Self.literal(name))"
        )
        let pids = output.split(whereSeparator: \.isNewline).compactMap { Int32($0) }
        guard pids.count == 1 else { throw NoSuchBackend(applicationName: name, found: pids.count) }
        return pids[0]
    }

    /// `text` as an SQL string literal.
    private static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
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

    /// Runs one of the server's programs (as the `postgres` user when the tests run as root); returns its output.
    @discardableResult
    private func run(_ command: [String]) async throws -> String {
        var command = command
        command[0] = Self.serverProgram(command[0])
        let full = runAs + command
        let result = try await ChildProcess.run(full[0], Array(full.dropFirst()), searchPath: true)
        guard result.status == 0 else { throw CommandFailed(command: full, result: result) }
        return result.standardOutput
    }

    /// The path of one of the server's programs (`initdb`, `pg_ctl`, `psql`) in ``serverBinaries``; else `name`, for
    /// `PATH`.
    private static func serverProgram(_ name: String) -> String {
        guard let folder = serverBinaries, ["initdb", "pg_ctl", "psql"].contains(name) else { return name }
        return "\(folder)/\(name)"
    }

    /// A TCP port nothing listens on now, chosen at random **below the kernel's ephemeral range**
    /// (`/proc/sys/net/ipv4/ip_local_port_range`, 32768–60999 by default): the kernel's own pick for port 0 comes from
    /// that range, which is also where every outgoing connection of the test process (and of the servers it tests)
    /// takes its source port — so between this call and the server's `bind` such a port was sometimes taken. Below
    /// the range only another listener can take it, which ``started()`` survives by trying another port.
    private static func freePort() throws -> Int {
        let ephemeralStart =
            (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } } ?? 32_768
        let candidates = 10_000..<max(10_001, min(ephemeralStart, 65_536))
        for _ in 0..<100 {
            let port = Int.random(in: candidates)
            if try canBind(port) { return port }
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// Whether a listener could bind `port` on 127.0.0.1 now.
    private static func canBind(_ port: Int) throws -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 }
        }
    }
}
