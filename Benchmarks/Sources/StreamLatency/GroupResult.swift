/// One group phase, finished: what each member handled and when, and the figures made from it.
///
/// All operations on `GroupResult` are thread-safe (it is a value).
struct GroupResult: Sendable {
    /// The peer measured.
    var peer: GroupPeer
    /// Whether a member was killed (`kill -9`) part-way.
    var killsOne: Bool
    /// Events in the backlog (numbered 0 to `events - 1`).
    var events: Int
    /// Per member, what it handled, in the order it printed it; member 0 is the one killed in a kill phase.
    var batches: [[HandledBatch]]
    /// Lines the members printed that were neither `ready` nor a handled batch (resyncs, errors).
    var otherLines: [String]
    /// When member 0 was killed; `nil` when it was not.
    var killedAt: Int64?
    /// When the measuring process first saw the backlog drained in the database (every event acknowledged: the group
    /// holds no claim; every job deleted); `nil` when it was not within the drain timeout.
    var drainedAt: Int64?
    /// What the database did from before the members started until their backends were gone, less the measuring
    /// process's own statements (its drain checks and waits, counted).
    var activity: DatabaseActivity
    /// CPU seconds the member processes used from the go until the backlog drained; `nil` with a kill (the killed
    /// member's time is gone with it).
    var memberCPU: Double?
    /// CPU seconds their PostgreSQL backends used over the same time; `nil` with a kill.
    var backendCPU: Double?
    /// The 1-minute load average before and after the phase.
    var load: (before: Double?, after: Double?)

    /// Every handled event, with the member that handled it and when.
    private var handlings: [(member: Int, index: Int, at: Int64, redelivered: Bool)] {
        batches.enumerated().flatMap { member, batches in
            batches.flatMap { batch in
                zip(batch.indices, batch.wasRedelivered).map { (member, $0.0, batch.handledAt, $0.1) }
            }
        }
    }

    /// Handlings, counting each time an event was handled.
    var handled: Int { batches.joined().reduce(0) { $0 + $1.indices.count } }

    /// Events per handled batch (mailbox take, or `SELECT`), on average.
    var meanBatch: Double {
        let count = batches.joined().count
        return count > 0 ? Double(handled) / Double(count) : 0
    }

    /// Handlings per member.
    var handledPerMember: [Int] { batches.map { $0.reduce(0) { $0 + $1.indices.count } } }

    /// Distinct events handled (numbers in range only).
    var distinct: Int { Set(handlings.map(\.index).filter { (0..<events).contains($0) }).count }

    /// Handlings whose number was not an event of the backlog (a payload that did not parse).
    var malformed: Int { handlings.count { !(0..<events).contains($0.index) } }

    /// Events never handled.
    var lost: Int { events - distinct }

    /// Events handled more than once (each extra time counts): the work a redelivery repeated.
    var handledTwice: Int { handled - malformed - distinct }

    /// Mainline: deliveries the group marked as handed out before (`deliveryCount > 1`, what
    /// `StreamGroupSubscription.Counts.redelivered` counts), including events the killed member had claimed but not
    /// handled yet; `nil` for the queue, which keeps no such count.
    var redelivered: Int? { peer == .mainline ? handlings.count { $0.redelivered } : nil }

    /// The first handling, by either member.
    var firstHandledAt: Int64? { batches.joined().map(\.handledAt).min() }

    /// From the first handling until the backlog was drained in the database, in nanoseconds; `nil` when it was not.
    var duration: Int64? {
        guard let drainedAt, let firstHandledAt else { return nil }
        return drainedAt - firstHandledAt
    }

    /// Events handled and acknowledged (committed) per second by the two members: events ÷ ``duration``.
    var perSecond: Double? { duration.map { Double(events) * 1e9 / Double(max($0, 1)) } }

    /// After the kill, how long until the surviving member handled an event the killed one had held: for the group,
    /// the first delivery with `deliveryCount > 1` (its lease expired); for the queue, the first row the killed worker
    /// had handled, uncommitted (its transaction rolled back when its connection closed). `nil` when nothing was taken
    /// over (the kill fell between a commit and the next `SELECT`) or no member was killed.
    var takeover: Int64? {
        guard let killedAt else { return nil }
        let survivor = handlings.filter { $0.member != 0 && $0.at >= killedAt }
        let takenOver: [Int64]
        switch peer {
        case .mainline:
            takenOver = survivor.filter(\.redelivered).map(\.at)
        case .skipLocked:
            let heldByKilled = Set(handlings.filter { $0.member == 0 }.map(\.index))
            takenOver = survivor.filter { heldByKilled.contains($0.index) }.map(\.at)
        }
        return takenOver.min().map { $0 - killedAt }
    }

    /// Whether the books balance: every event handled, nothing malformed or resynced, the backlog drained; and, with no
    /// kill, nothing handled twice.
    var isIntact: Bool {
        lost == 0 && malformed == 0 && otherLines.isEmpty && drainedAt != nil && (killsOne || handledTwice == 0)
    }
}
