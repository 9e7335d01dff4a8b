#if Postgres
import MainlineLoop
import PostgresNIO

/// One member of a consumer group: a ``StreamSubscriber``'s share of a stream whose events the group's members, in any
/// number of processes, split between them.
///
/// All operations on `StreamGroupSubscription` are thread-safe.
///
/// Guarantees:
/// - **At least once.** Each event of the stream goes to one member at a time. It stays the member's until the member
///   calls ``acknowledge(_:)``. A member's liveness is its subscriber's database session: when its process dies or its
///   connection ends, the other members take its events at their next round (within
///   ``StreamSubscriber/Options/groupTakeoverCheckInterval`` when they are idle), with a higher
///   ``StreamEvent/deliveryCount``; a member that is alive but stuck loses them when its lease
///   (``StreamSubscriber/Options/groupLease``) expires; a cancelled member hands them back at once.
/// - **A connection blip costs the claims another member took meanwhile.** A member whose connection drops keeps,
///   when it reconnects, what nobody took in between; what another member took is counted in ``Counts/lostClaims``,
///   and acknowledging it then counts as stale (``Counts/staleAcknowledgements``).
/// - **Key order.** Events published with the same key go to one member at a time, in sequence order: an event is not
///   handed out while an earlier event of its key is held, unacknowledged, by another member. Events without a key
///   have no order among members.
/// - **The group's position is in the database**: every event at or before it was acknowledged (or was gone). A
///   member that joins, in any process, continues the group; only a group's first member uses its `from` start.
/// - **Nothing is silently lost.** Events that retention deleted before the group acknowledged them reach the member
///   that finds the gap as one ``StreamDelivery/resync(_:)``.
///
/// A member holds at most ``StreamSubscriber/Options/groupWindow`` unacknowledged events; it claims more once half
/// of them are acknowledged. Its subscriber renews the leases of the events it holds every third of a lease, on its
/// connection, so a slow member whose process and connection live keeps its events.
public final class StreamGroupSubscription: Sendable {
    /// What a member did so far.
    ///
    /// All operations on `Counts` are thread-safe (it is a value).
    public struct Counts: Sendable, Hashable {
        /// Events its mailbox accepted.
        public var delivered = 0
        /// Of those, events another member had held before (``StreamEvent/deliveryCount`` above 1).
        public var redelivered = 0
        /// Events acknowledged by its consumer.
        public var acknowledged = 0
        /// Acknowledgements the database no longer held for this member (its lease had expired and the event went
        /// to another member), ignored.
        public var staleAcknowledgements = 0
        /// Acknowledgements of events this member did not deliver, or acknowledged before; ignored.
        public var unknownAcknowledgements = 0
        /// Events its mailbox dropped by its overflow policy (`.dropOldest`, `.dropNewest`, a replacing mailbox): the
        /// consumer chose not to see them, so they count as acknowledged once it takes a later delivery.
        public var dropped = 0
        /// Resyncs its mailbox accepted.
        public var resyncs = 0
        /// Stored payloads its decoder refused: each logged, acknowledged and skipped.
        public var undecodable = 0
        /// Times its mailbox refused an event (offered again later; the event stays this member's meanwhile).
        public var refused = 0
        /// Times its mailbox (`BoundedMailbox` with `.suspend`) was full and it waited for room.
        public var waits = 0
        /// Events it held when its connection ended that another member took (or acknowledged) before it joined again
        /// on a new connection.
        public var lostClaims = 0
    }

    /// The stream its group shares.
    public let stream: String
    /// The group's name.
    public let group: String
    /// This member's name in the database (`<prefix>_claims.member`): unique per subscription.
    public let member: String
    /// Where the group starts when this member creates it.
    let start: StreamStart
    /// Whether the mailbox reports takes (``took(_:)``); otherwise a placed event counts as taken.
    let tracksTakes: Bool
    let id: Int
    /// Decodes and places one event; runs on the subscriber's reader task only.
    let placeEvent: @Sendable (StreamEvent<ByteBuffer>) -> StreamSubscription._Placement
    /// Places a resync; runs on the subscriber's reader task only.
    let placeResync: @Sendable (StreamResync) -> StreamSubscription._Placement
    /// Wakes its subscriber's reader for it; set once, by the subscriber.
    let wakeReader: @Sendable (StreamGroupSubscription) -> Void
    /// The member's state machine. Protected by its lock.
    let machine: _Locked<GroupMember>
    /// The task waiting for room in a `.suspend` mailbox for the backlog's first delivery, if one does. Protected by its
    /// lock, taken inside `machine`'s (never the other way round).
    let waiting = _Locked<Task<Void, Never>?>(nil)

    /// Something this member holds that its mailbox has not accepted yet.
    enum Pending: Sendable, Hashable {
        case event(StreamEvent<ByteBuffer>)
        case resync(StreamResync)
    }

    init(
        stream: String,
        group: String,
        member: String,
        start: StreamStart,
        tracksTakes: Bool,
        id: Int,
        window: Int,
        placeEvent: @escaping @Sendable (StreamEvent<ByteBuffer>) -> StreamSubscription._Placement,
        placeResync: @escaping @Sendable (StreamResync) -> StreamSubscription._Placement,
        wakeReader: @escaping @Sendable (StreamGroupSubscription) -> Void
    ) {
        self.stream = stream
        self.group = group
        self.member = member
        self.start = start
        self.tracksTakes = tracksTakes
        self.id = id
        self.placeEvent = placeEvent
        self.placeResync = placeResync
        self.wakeReader = wakeReader
        machine = _Locked(GroupMember(stream: stream, window: window, tracksTakes: tracksTakes))
    }

    /// Acknowledges `event`: the member is done with it, and the group never hands it out again. Thread-safe: call it
    /// on the main actor after handling the delivery, or from the task you handed the work to.
    ///
    /// Acknowledgements are written in batches by the subscriber's reader (at once when half a window is due or the
    /// member holds nothing else unacknowledged, otherwise at the next lease renewal, and when the subscriber stops), so
    /// an event acknowledged just before a crash may be delivered again.
    ///
    /// - Parameter event: An event this member delivered. One it did not deliver, or acknowledged before, is ignored
    ///   and counted (``Counts/unknownAcknowledgements``).
    public func acknowledge<Value>(_ event: StreamEvent<Value>) {
        acknowledge(sequence: event.sequence)
    }

    /// Acknowledges the event with `sequence` (see ``acknowledge(_:)``). Thread-safe.
    ///
    /// - Parameter sequence: The sequence of an event this member delivered.
    public func acknowledge(sequence: Int64) {
        if machine.withLock({ $0.acknowledge(sequence) }) { wakeReader(self) }
    }

    /// Events this member placed in its mailbox and its consumer has not acknowledged yet. Thread-safe.
    public var unacknowledged: Int { machine.withLock { $0.inFlight.count + $0.placed.count } }

    /// Records that the consumer took `sequences` (events, in the order taken): they wait for acknowledgement now, and
    /// whatever was placed before the last of them and not taken was dropped by the mailbox, so it counts as
    /// acknowledged. On the main actor, from the mailbox's take observer.
    func took(_ sequences: [Int64]) {
        if machine.withLock({ $0.took(sequences) }) { wakeReader(self) }
    }

    /// What it did so far. Thread-safe.
    public var counts: Counts { machine.withLock { $0.counts } }

    /// Whether ``cancel()`` was called. Thread-safe.
    public var isCancelled: Bool { machine.withLock { $0.cancelled } }

    /// Leaves the group: nothing more is placed in its mailbox once the subscriber's current placement (if any) returns;
    /// while the subscriber runs, its reader writes the acknowledgements made so far and hands every event this member
    /// holds back to the group at once (otherwise their leases expire). Thread-safe; calling it again does nothing.
    public func cancel() {
        guard machine.withLock({ $0.cancel() }) else { return }
        waiting.withLock { $0?.cancel() }
        wakeReader(self)
    }
}
#endif
