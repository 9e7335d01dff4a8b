/// The error `run(_:)` throws when the loop has stopped, or stops, before the body could run: the body never runs.
/// `BoundedMailbox.send(_:)` (MainlineEvents) throws it too, when the mailbox's loop has stopped, or stops, while the
/// sender would wait or waits: its value was not sent.
///
/// `LoopStopped` is a value type; all operations on it are thread-safe.
public struct LoopStopped: Error, Sendable, Hashable, CustomStringConvertible {
    /// Creates the error.
    public init() {}

    /// `the loop has stopped; the body did not run, or the value was not sent`.
    public var description: String { "the loop has stopped; the body did not run, or the value was not sent" }
}
