/// The ways the benchmark carries an event from the publishing process to the measuring one.
///
/// All operations on `Peer` are thread-safe (it is a value).
public enum Peer: String, Sendable, CaseIterable {
    /// MainlinePostgres: `StreamPublisher.publish` (outbox row + hint in one transaction), `StreamSubscriber` into a
    /// mailbox observed on the main loop.
    case mainline
    /// MainlinePostgres under group commit: the same publisher and subscriber, but the sustained phase publishes from
    /// many tasks at once (`--batched-tasks`), each call `publish(contentsOf:)` of `--batch` events (one: a plain
    /// `publish`), so that commits carry many events. Not run in the latency phase, where it would be `mainline`'s
    /// call again.
    case batched
    /// Plain PostgreSQL: `SELECT pg_notify(channel, payload)`, received by a connection that `LISTEN`s.
    case notify
}

/// How the publishing process sends.
///
/// All operations on `LoadShape` are thread-safe (it is a value).
public enum LoadShape: String, Sendable {
    /// Open loop at a fixed rate: event *i* is started at `start + i / rate`, whatever became of the ones before.
    case paced
    /// As fast as it can: a number of tasks, each publishing its next event as soon as its last one committed.
    case flood
}
