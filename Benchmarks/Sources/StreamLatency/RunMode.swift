/// What one invocation of `stream-latency` measures.
///
/// All operations on `RunMode` are thread-safe (it is a value).
enum RunMode: String, Sendable {
    /// Publish → deliver across two processes: the latency and sustained phases of `--peers` (the default).
    case latency
    /// Consumer groups beside a hand-rolled `FOR UPDATE SKIP LOCKED` queue: events handled by two member processes,
    /// then the same with one member killed (`kill -9`) part-way (issue 28 item 6).
    case group
}
