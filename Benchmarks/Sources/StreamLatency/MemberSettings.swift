import PostgresNIO
import StreamWire

/// What a member process of the group mode is told on its command line by the measuring process (the same program,
/// re-invoked with `--member <peer>`; not run by hand).
///
///     stream-latency --member mainline-group|skip-locked --port <port> --database <name> --user <name>
///                    --target <stream|table> --batch <k> --lease <seconds> [--stall-after <count>]
///
/// All operations on `MemberSettings` are thread-safe (it is a value).
struct MemberSettings: Sendable {
    /// Which peer's worker it is.
    var peer: GroupPeer
    /// Where the database is.
    var configuration: PostgresConnection.Configuration
    /// The stream (mainline) or the jobs table (skip-locked).
    var target: String
    /// The group's window (mainline), or `LIMIT k` of each `SELECT … FOR UPDATE SKIP LOCKED` (skip-locked).
    var batch: Int
    /// The group's lease (mainline), in seconds.
    var lease: Double
    /// Once it handled this many events, it prints `stalled` after the batch that reached the count and stops there,
    /// before acknowledging or committing it, until it is killed: a process that dies mid-work. 0: never.
    var stallAfter: Int

    /// Reads the options from `arguments`.
    ///
    /// - Throws: ``Arguments/Invalid`` for a missing or unknown option value.
    init(_ arguments: Arguments) throws(Arguments.Invalid) {
        let name: String = try arguments.required("member")
        guard let peer = GroupPeer(rawValue: name) else { throw Arguments.Invalid(description: "--member \(name)?") }
        self.peer = peer
        configuration = PostgresConnection.Configuration(
            host: "127.0.0.1",
            port: try arguments.required("port"),
            username: try arguments.required("user"),
            password: nil,
            database: try arguments.required("database"),
            tls: .disable
        )
        target = try arguments.required("target")
        batch = try arguments.required("batch")
        lease = try arguments.required("lease")
        stallAfter = try arguments.value("stall-after", default: 0)
    }
}
