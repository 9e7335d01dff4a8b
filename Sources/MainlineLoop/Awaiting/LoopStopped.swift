/// The error `run(_:)` throws when the loop has stopped, or stops, before the body could run: the body never runs.
///
/// `LoopStopped` is a value type; all operations on it are thread-safe.
public struct LoopStopped: Error, Sendable, Hashable, CustomStringConvertible {
    /// Creates the error.
    public init() {}

    /// `the loop has stopped; the body did not run`.
    public var description: String { "the loop has stopped; the body did not run" }
}
