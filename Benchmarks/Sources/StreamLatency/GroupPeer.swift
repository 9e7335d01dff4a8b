/// The two ways the group mode shares a backlog of events between two worker processes.
///
/// All operations on `GroupPeer` are thread-safe (it is a value).
enum GroupPeer: String, Sendable, CaseIterable {
    /// MainlinePostgres consumer groups: events published to a stream, each member a `StreamSubscriber` that joins the
    /// group, takes its deliveries from a mailbox on the main loop and acknowledges them.
    case mainline = "mainline-group"
    /// The hand-rolled queue: a `jobs` table, each worker looping `BEGIN; SELECT … FOR UPDATE SKIP LOCKED LIMIT k;`
    /// handle; `DELETE`; `COMMIT`.
    case skipLocked = "skip-locked"
}
