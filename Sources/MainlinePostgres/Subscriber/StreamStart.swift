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
    /// From a position the database keeps under `name` (in `<prefix>_positions`): right after the last event the
    /// subscription's consumer *took* from its mailbox, so a restarted process resumes where it stopped. The position
    /// is written as it advances, in batches (every ``StreamSubscriber/Options/positionFlushInterval``), and when the
    /// subscriber stops. A name the database does not know yet starts `initially` (not `.stored`) and is stored at
    /// once. When events after the stored position are gone, the subscription begins with one resync.
    ///
    /// A name belongs to one stream and one subscription: ``StreamSubscriber`` throws
    /// ``StreamError/positionNameInUse(_:stream:otherStream:)`` for a second subscription of it in the same subscriber,
    /// and ends the subscription with that error (logged, in ``StreamSubscription/failure``) when the database keeps
    /// the name for another stream. Not for groups, whose position the group keeps.
    indirect case stored(String, initially: StreamStart = .latest)

    /// Whether it is ``stored(_:initially:)``.
    var isStored: Bool {
        if case .stored = self { return true }
        return false
    }
}
#endif
