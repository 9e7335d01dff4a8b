#if Postgres
/// Where a new subscription starts reading its stream.
///
/// All operations on `StreamStart` are thread-safe (it is a value).
public enum StreamStart: Sendable, Hashable {
    /// After the stream's last event when the subscriber first reads it (new events only).
    case latest
    /// From the oldest event the table still holds; no resync for what retention deleted before.
    case oldestAvailable
    /// After `sequence`: resume from a position you stored (``StreamSubscription/lastSequence``). When events after
    /// it are gone, the subscription begins with one resync. `after(0)` means from the stream's first event.
    case after(Int64)
}
#endif
