#if Postgres
import Foundation
import PostgresNIO

/// One consumer group member's state, as a state machine: events (a connection, a round's answer, a placement, a
/// take, an acknowledgement, a cancellation, a timer) change it and return what the caller does next (a statement to
/// send, a delivery to offer, a reader to wake). It performs no I/O: ``StreamSubscriber`` runs the statements it asks
/// for (`StreamSubscriber+GroupRounds.swift`), ``StreamGroupSubscription`` keeps it under a lock, and the tests step
/// it without a database.
///
/// Not thread-safe (a value): its owner serialises access.
struct GroupMember: Sendable {
    /// Where the member is with its connection.
    enum State: Sendable, Hashable {
        /// Not joined on the current connection (a new member, or a new connection): its next round joins.
        case mustJoin
        /// A join is on the connection.
        case joining
        /// Joined; none of its statements is on the connection.
        case ready
        /// A round is on the connection, carrying these acknowledgements.
        case inRound(acknowledgements: [Int64])
        /// Cancelled: its leave (the acknowledgements, and everything it holds handed back) is on the connection.
        case leaving
        /// Left the group: nothing more happens.
        case left
    }

    /// What the reader sends next for this member.
    enum RoundAction: Sendable, Hashable {
        /// Nothing: the member has nothing to write and wants nothing.
        case none
        /// Join: create the group's row if it is new, hand back what this member's earlier connections claimed except
        /// `keep`, and take `keep` over into the current session (what it no longer holds is answered as lost).
        case join(keep: [Int64])
        /// One round (``GroupRoundFunction``): delete the claims of `acknowledgements`, renew the leases of `renew`,
        /// and claim up to `want` events.
        case round(acknowledgements: [Int64], renew: [Int64], want: Int)
        /// Leave: delete the claims of `acknowledgements` and hand everything else back, those in `unplaced` with
        /// their delivery counted back down.
        case leave(acknowledgements: [Int64], unplaced: [Int64])
    }

    /// What a round's statement answered.
    struct RoundAnswer: Sendable, Hashable {
        /// Acknowledgements whose claims were deleted (the others were no longer this member's).
        var acknowledged = 0
        /// The events claimed, in sequence order.
        var events: [StreamEvent<ByteBuffer>] = []
        /// Claimed sequences whose events retention had deleted (the member acknowledges them with its next round).
        var gone: [Int64] = []
        /// The gap before the events handed into the group, if events there were deleted.
        var gap: StreamResync?
        /// Whether the group's row was missing (its tables were recreated).
        var groupMissing = false
        /// Whether other members hold claims (a member that dies would leave them to take over).
        var othersHoldClaims = false
        /// The stream's head and the group's position (every event at or before it acknowledged) after a claim;
        /// `nil` when the round claimed nothing.
        var head: Int64?
        var groupPosition: Int64?
    }

    /// What an offer to the mailbox came to.
    enum Offer: Sendable, Hashable {
        case placed
        case refused
        /// The decoder refused the payload: the event is skipped and acknowledged.
        case undecodable
    }

    /// Where it is with its connection.
    private(set) var state: State = .mustJoin
    /// The stream its group shares.
    let stream: String
    /// The most unacknowledged events it holds.
    let window: Int
    /// Whether the mailbox reports takes; otherwise a placed event counts as taken.
    let tracksTakes: Bool
    /// Claimed, not accepted by the mailbox yet, in sequence order (a resync before the events it precedes); the first
    /// may be waiting for room.
    private(set) var backlog: [StreamGroupSubscription.Pending] = []
    /// Accepted by the mailbox, not taken yet (only when it tracks takes), with the order they were placed in.
    private(set) var placed: [Int64: Int] = [:]
    private var nextPlacement = 0
    /// Taken by the consumer (or, without take tracking, placed), not acknowledged yet.
    private(set) var inFlight: Set<Int64> = []
    /// Acknowledged, not yet sent to the database.
    private(set) var acknowledgements: [Int64] = []
    private(set) var counts = StreamGroupSubscription.Counts()
    private(set) var cancelled = false
    private(set) var renewalDue = false
    /// Whether a task waits for room in the mailbox with the backlog's first delivery.
    private(set) var waitingForRoom = false
    /// Whether a takeover check is scheduled (``roundAnswered(_:)`` asked for one and it has not fired).
    private(set) var takeoverCheckPending = false
    /// What the inspector shows: the stream's head and the group's position as the last claim saw them, when the last
    /// event delivered was published, and the last resync's range.
    private(set) var head: Int64?
    private(set) var groupPosition: Int64?
    private(set) var lastPublishedAt: Date?
    private(set) var lastResync: (from: Int64, to: Int64)?

    init(stream: String, window: Int, tracksTakes: Bool) {
        self.stream = stream
        self.window = max(window, 1)
        self.tracksTakes = tracksTakes
    }

    /// Sequences it holds in the database: placed and unacknowledged, or claimed and not yet placed.
    var held: [Int64] {
        Array(inFlight) + Array(placed.keys)
            + backlog.compactMap { if case .event(let event) = $0 { event.sequence } else { nil } }
    }

    /// Whether to claim now: room for at least half a window (so claims come in batches), nothing waiting to be placed.
    var wantsToClaim: Bool {
        backlog.isEmpty && !waitingForRoom && window - inFlight.count - placed.count >= (window + 1) / 2
    }

    // MARK: The connection

    /// A new connection (or the first): the member joins again with its next round. A statement of it that was on the
    /// old connection may or may not have committed: its acknowledgements are sent again (deleting a deleted claim does
    /// nothing), and what it may have claimed stays with the old session, which the other members take over.
    mutating func connected() {
        switch state {
        case .left:
            return
        case .inRound(let sent):
            acknowledgements = sent + acknowledgements
        case .mustJoin, .joining, .ready, .leaving:
            break
        }
        state = .mustJoin
    }

    /// What the reader sends next for this member (nothing while one of its statements is on the connection); with
    /// `mayClaim` false, a round only writes and renews (the reader claims once per wake-up, so a member whose claims
    /// find nothing does not spin).
    mutating func nextRound(mayClaim: Bool = true) -> RoundAction {
        switch state {
        case .joining, .inRound, .leaving, .left:
            return .none
        case .mustJoin where !cancelled:
            // What it claimed and never placed goes back: the delivery waiting for room stays (its task holds it), and
            // so do acknowledgements not sent yet (a claim handed back before its acknowledgement is written would be
            // delivered again).
            backlog.removeLast(waitingForRoom ? backlog.count - 1 : backlog.count)
            state = .joining
            return .join(keep: held + acknowledgements)
        case .mustJoin, .ready:
            if cancelled {
                let unplaced = backlog.compactMap { if case .event(let event) = $0 { event.sequence } else { nil } }
                let sent = acknowledgements
                acknowledgements = []
                state = .leaving
                return .leave(acknowledgements: sent, unplaced: unplaced)
            }
            let want = mayClaim && wantsToClaim ? window - held.count : 0
            let renew = renewalDue ? held : []
            renewalDue = false
            guard want > 0 || !acknowledgements.isEmpty || !renew.isEmpty else { return .none }
            let sent = acknowledgements
            acknowledgements = []
            state = .inRound(acknowledgements: sent)
            return .round(acknowledgements: sent, renew: renew, want: want)
        }
    }

    /// The join was answered: `lost` are the sequences it held that its session no longer owned (another member took
    /// them, or acknowledged them, while its old session was gone). They stay in flight: their acknowledgements will
    /// count as stale.
    mutating func joined(lost: [Int64]) {
        guard state == .joining else { return }
        counts.lostClaims += lost.count
        state = .ready
    }

    /// The round was answered. Returns whether to schedule a takeover check: other members hold claims, and this one
    /// has room it could not fill (a member whose session ends must not wait for a publish to be noticed).
    mutating func roundAnswered(_ answer: RoundAnswer) -> Bool {
        guard case .inRound(let sent) = state else { return false }
        counts.staleAcknowledgements += max(sent.count - answer.acknowledged, 0)
        if let gap = answer.gap { backlog.append(.resync(gap)) }
        if let first = answer.gone.first, let last = answer.gone.last {
            backlog.append(.resync(StreamResync(stream: stream, lastDelivered: first - 1, resumesAfter: last)))
            // Claimed, but deleted by retention before the group acknowledged them: forgotten with the next round.
            acknowledgements += answer.gone
        }
        backlog += answer.events.map { .event($0) }
        head = answer.head ?? head
        groupPosition = answer.groupPosition ?? groupPosition
        state = answer.groupMissing ? .mustJoin : .ready
        guard answer.othersHoldClaims, !takeoverCheckPending, !cancelled,
            window - held.count >= (window + 1) / 2
        else { return false }
        takeoverCheckPending = true
        return true
    }

    /// The takeover check fired: the member is due for a round.
    mutating func takeoverCheckFired() {
        takeoverCheckPending = false
    }

    /// The leave was answered (`acknowledged` of the acknowledgements it carried were still this member's): nothing
    /// more happens.
    mutating func leftGroup(sent: Int, acknowledged: Int) {
        counts.staleAcknowledgements += max(sent - acknowledged, 0)
        state = .left
    }

    /// The subscriber stops: returns the acknowledgements to write and what to keep (everything else this member's
    /// connection claimed goes back to the group at once); the backlog is dropped but for a delivery waiting for room.
    /// A later run joins again.
    mutating func stop() -> (acknowledgements: [Int64], keep: [Int64]) {
        if case .inRound(let sent) = state { acknowledgements = sent + acknowledgements }
        backlog.removeLast(waitingForRoom ? backlog.count - 1 : backlog.count)
        let sent = acknowledgements
        acknowledgements = []
        if state != .left { state = .mustJoin }
        return (sent, held + sent)
    }

    /// The stop's statement was answered: `acknowledged` of the `sent` acknowledgements were still this member's.
    mutating func stopped(sent: Int, acknowledged: Int) {
        counts.staleAcknowledgements += max(sent - acknowledged, 0)
    }

    /// The lease timer: the next round renews what it holds.
    mutating func renewalTimerFired() {
        renewalDue = true
    }

    // MARK: The mailbox

    /// The delivery to offer the mailbox next, if any (none while one waits for room, or once cancelled). With take
    /// tracking, an event is recorded as placed before it is offered: the consumer may take it (and the take observer
    /// look for it) before the offer returns.
    mutating func nextOffer() -> StreamGroupSubscription.Pending? {
        guard !waitingForRoom, !cancelled, state != .left, let first = backlog.first else { return nil }
        if tracksTakes, case .event(let event) = first {
            placed[event.sequence] = nextPlacement
            nextPlacement += 1
        }
        return first
    }

    /// The mailbox is full and its producers wait (`.suspend`): returns whether a task is to wait for room with the
    /// backlog's first delivery (not once cancelled: the delivery then stays first in the backlog).
    mutating func mustWaitForRoom() -> Bool {
        guard let first = backlog.first, !waitingForRoom else { return false }
        guard !cancelled else {
            if case .event(let event) = first { placed[event.sequence] = nil }
            return false
        }
        waitingForRoom = true
        counts.waits += 1
        return true
    }

    /// What the offer of ``nextOffer()``'s delivery came to.
    mutating func offered(_ offer: Offer) {
        guard let first = backlog.first else { return }
        switch offer {
        case .placed:
            accept()
        case .refused:
            counts.refused += 1
            if case .event(let event) = first { placed[event.sequence] = nil }
        case .undecodable:
            backlog.removeFirst()
            if case .event(let event) = first {
                placed[event.sequence] = nil
                acknowledgements.append(event.sequence)
                counts.undecodable += 1
            }
        }
    }

    /// The wait for room ended: the delivery was placed (`accepted`), or the wait was given up (cancelled, or the
    /// mailbox takes nothing any more) and the delivery stays first in the backlog.
    mutating func waitEnded(accepted: Bool) {
        guard waitingForRoom else { return }
        waitingForRoom = false
        if accepted {
            accept()
        } else if case .event(let event) = backlog.first {
            placed[event.sequence] = nil
        }
    }

    private mutating func accept() {
        let delivery = backlog.removeFirst()
        switch delivery {
        case .event(let event):
            if !tracksTakes { inFlight.insert(event.sequence) }
            counts.delivered += 1
            lastPublishedAt = event.publishedAt
            if event.deliveryCount > 1 { counts.redelivered += 1 }
        case .resync(let resync):
            lastResync = (resync.lastDelivered, resync.resumesAfter)
            counts.resyncs += 1
        }
    }

    // MARK: The consumer

    /// The consumer acknowledged `sequence`. Returns whether to wake the reader: half a window is due, or the member
    /// holds nothing else unacknowledged.
    mutating func acknowledge(_ sequence: Int64) -> Bool {
        guard inFlight.remove(sequence) != nil else {
            counts.unknownAcknowledgements += 1
            return false
        }
        acknowledgements.append(sequence)
        counts.acknowledged += 1
        return inFlight.isEmpty || acknowledgements.count >= (window + 1) / 2
    }

    /// The consumer took `sequences` (in the order taken): they wait for acknowledgement now, and whatever was placed
    /// before the last of them and not taken was dropped by the mailbox, so it counts as acknowledged. Returns whether
    /// to wake the reader (something was dropped).
    mutating func took(_ sequences: [Int64]) -> Bool {
        var latest = -1
        for sequence in sequences {
            guard let order = placed.removeValue(forKey: sequence) else { continue }
            inFlight.insert(sequence)
            latest = max(latest, order)
        }
        let dropped = placed.filter { $0.value < latest }.map(\.key).sorted()
        for sequence in dropped {
            placed[sequence] = nil
            acknowledgements.append(sequence)
        }
        counts.dropped += dropped.count
        return !dropped.isEmpty
    }

    /// The consumer left the group. Returns whether this is the first call (then wake the reader, and give up any wait
    /// for room).
    mutating func cancel() -> Bool {
        defer { cancelled = true }
        return !cancelled
    }
}
#endif
