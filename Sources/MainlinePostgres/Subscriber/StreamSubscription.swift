#if Postgres
import Foundation
import MainlineLoop
import PostgresNIO

/// One subscription of a ``StreamSubscriber`` to one stream: where it has read to, what it did, and how to end it.
///
/// All operations on `StreamSubscription` are thread-safe.
///
/// The subscriber places each event of the stream into the subscription's mailbox once, in sequence order. It
/// advances ``lastSequence`` only when the mailbox accepted the event, so a mailbox that refuses (a
/// `BoundedMailbox` with `.reject`, full) loses nothing: the subscriber reads the event again from the table a
/// little later (``StreamSubscriber/Options/retryInterval``). A `BoundedMailbox` with `.suspend` that is full makes
/// the subscription wait for room instead (``Counts/waits``): the event is handed to the mailbox's waiting senders and
/// placed as soon as the consumer takes, with no polling, while the subscriber's other subscriptions go on reading.
/// A mailbox that drops (`.dropOldest`, `.dropNewest`, `LatestMailbox`, `KeyedMailbox`) drops by its own rule, and
/// counts it.
public final class StreamSubscription: Sendable {
    /// What a subscription did so far.
    ///
    /// All operations on `Counts` are thread-safe (it is a value).
    public struct Counts: Sendable, Hashable {
        /// Events its mailbox accepted.
        public var delivered = 0
        /// Resyncs its mailbox accepted (one per gap).
        public var resyncs = 0
        /// Stored payloads its decoder refused: each logged and skipped.
        public var undecodable = 0
        /// Times its mailbox refused an event (it was read again later).
        public var refused = 0
        /// Times its mailbox (`BoundedMailbox` with `.suspend`) was full and it waited for room; the event was placed
        /// when room came, so a wait is not a refusal.
        public var waits = 0
    }

    /// The stream it reads.
    public let stream: String
    let start: StreamStart
    /// Whether its position is kept in the database under a name: the name of ``StreamStart/stored(_:initially:)``.
    let positionName: String?
    /// Whether the mailbox reports takes (``took(_:)``); otherwise a placed delivery counts as taken.
    let tracksTakes: Bool
    let id: Int
    /// Decodes and places one event; runs on the subscriber's reader task only.
    let placeEvent: @Sendable (StreamEvent<ByteBuffer>) -> _Placement
    /// Places a resync; runs on the subscriber's reader task only.
    let placeResync: @Sendable (StreamResync) -> _Placement
    /// The position and the counts. Protected by its lock; only the subscriber's reader task (one at a time) moves
    /// `cursor`.
    let state = _Locked(State())
    /// Unregisters it from its subscriber; set once, by the subscriber.
    let onCancel: @Sendable (StreamSubscription) -> Void

    struct State {
        /// The last sequence placed (or skipped as undecodable, or started after); `nil` until the start is resolved.
        var cursor: Int64?
        var cancelled = false
        var counts = Counts()
        /// The task waiting for room in a `.suspend` mailbox, if one does; the reader skips the subscription meanwhile.
        var waiting: Task<Void, Never>?
        /// With a stored position: the position after the last delivery the consumer took, and the one last written.
        var taken: Int64?
        var stored: Int64?
        /// Why the subscriber ended it, if it did.
        var failure: StreamError?
        /// What the inspector shows: the stream's head as the last read saw it, when the last event placed was
        /// published, and the last resync's range.
        var head: Int64?
        var lastPublishedAt: Date?
        var lastResync: (from: Int64, to: Int64)?
    }

    /// What became of one delivery offered to the mailbox.
    enum _Placement {
        case placed
        case refused
        case undecodable(any Error)
        /// The mailbox is full and its producers wait (`.suspend`): run `send` to wait for room and place.
        case mustWait(send: @Sendable () async throws -> Void)
    }

    init(
        stream: String,
        start: StreamStart,
        tracksTakes: Bool = false,
        id: Int,
        placeEvent: @escaping @Sendable (StreamEvent<ByteBuffer>) -> _Placement,
        placeResync: @escaping @Sendable (StreamResync) -> _Placement,
        onCancel: @escaping @Sendable (StreamSubscription) -> Void
    ) {
        self.stream = stream
        self.start = start
        if case .stored(let name, _) = start { positionName = name } else { positionName = nil }
        self.tracksTakes = tracksTakes
        self.id = id
        self.placeEvent = placeEvent
        self.placeResync = placeResync
        self.onCancel = onCancel
    }

    /// The sequence of the last event placed in the mailbox (or skipped as undecodable), or that a resync resumed
    /// after; `nil` before the subscriber first read the stream. Store it to resume with ``StreamStart/after(_:)``.
    /// Thread-safe.
    public var lastSequence: Int64? { state.withLock { $0.cursor } }

    /// What it did so far. Thread-safe.
    public var counts: Counts { state.withLock { $0.counts } }

    /// For a subscription started ``StreamStart/stored(_:initially:)``: the position after the last delivery its
    /// consumer took (what a restart resumes after); `nil` before the subscriber read the stored one, and for other
    /// subscriptions. Thread-safe.
    public var takenSequence: Int64? { state.withLock { $0.taken } }

    /// Why the subscriber ended the subscription, if it did: ``StreamError/positionNameInUse(_:stream:otherStream:)``
    /// when the database keeps its stored position's name for another stream. Thread-safe.
    public var failure: StreamError? { state.withLock { $0.failure } }

    /// Records that the consumer took a delivery positioned at `position` (an event's sequence, a resync's
    /// `resumesAfter`). From the mailbox's take observer, or the reader when the placement is the take.
    func took(_ position: Int64) {
        state.withLock { state in
            // Before the start is resolved there is nothing to resume after; takes come in order afterwards.
            if state.taken != nil { state.taken = position }
        }
    }

    /// Whether ``cancel()`` was called. Thread-safe.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Ends the subscription: nothing more is placed in its mailbox once the subscriber's current placement (if any)
    /// returns; a wait for room in a `.suspend` mailbox is given up. Thread-safe; calling it again does nothing.
    public func cancel() {
        let first = state.withLock { state in
            defer { state.cancelled = true }
            state.waiting?.cancel()
            return !state.cancelled
        }
        if first { onCancel(self) }
    }
}
#endif
