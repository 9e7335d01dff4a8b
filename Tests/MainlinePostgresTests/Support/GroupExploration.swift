#if Postgres
import MainlineTesting
import PostgresNIO
@testable import MainlinePostgres
import _MainlineTestSupport

/// Two group member processes and the database, stepped by a seeded random schedule: every step is one event of a
/// member's state machine (a statement sent or answered, an offer, a take, an acknowledgement, a timer) or of the
/// world (a publish, a connection blip, a `kill -9`, a stuck member's leases running out). The invariants of a
/// consumer group are checked after every step; ``drain()`` then runs the live members until nothing moves.
struct GroupExploration {
    /// One member process: its state machine, its session, the statement it has on the connection, its mailbox and
    /// its consumer.
    struct Process {
        var name: String
        var session: Int32
        var machine: GroupMember
        /// The statement on the connection, executed by the database when sent, and its answer.
        var inFlight: (action: GroupMember.RoundAction, answer: Answer)?
        /// Accepted by the mailbox, not taken.
        var mailbox: [StreamGroupSubscription.Pending] = []
        /// Taken by the consumer, not acknowledged.
        var handling: [StreamEvent<ByteBuffer>] = []
        /// Whether the group may have taken its claims from it (a blip, an expired lease): its holdings are no longer
        /// exclusive.
        var faulted = false
    }

    /// One step of a schedule, kept for the report of a failure.
    enum TraceEntry {
        /// The step's roll and the process it picked.
        case roll(UInt64, String)
        /// A statement a member sent, and what the database answered.
        case sent(String, GroupMember.RoundAction, Answer)
    }

    /// The last `count` steps, one per line.
    func report(last count: Int) -> String {
        trace.suffix(count).map { entry in
            switch entry {
            case .roll(let roll, let name): "\(roll)@\(name)"
            case .sent(let name, let action, let answer): "  \(name) sent \(action) -> \(answer)"
            }
        }.joined(separator: "\n")
    }

    /// A statement's answer, by kind.
    enum Answer {
        case joined(lost: [Int64])
        case round(GroupMember.RoundAnswer)
        case left(sent: Int, acknowledged: Int)
    }

    /// A broken invariant: what, at which step of which schedule.
    struct Violation: Error, CustomStringConvertible {
        var description: String
    }

    var model = GroupModel()
    var processes: [Process] = []
    var random: SeededRandomNumberGenerator
    let window: Int
    /// Whether anything happened that allows a redelivery (a blip, a kill, an expired lease, a cancellation).
    var faults = false
    /// Every delivery placed in any mailbox, in order.
    var placements: [(process: Int, delivery: StreamGroupSubscription.Pending)] = []
    /// The steps taken, for a failure's report (formatted only then: see ``report``).
    var trace: [TraceEntry] = []
    /// How many times each event was placed.
    var placedTimes: [Int64: Int] = [:]
    private var nextName = 0
    private var nextSession: Int32 = 1

    init(seed: UInt64, window: Int) {
        random = SeededRandomNumberGenerator(seed: seed)
        self.window = window
        processes = [newProcess(), newProcess()]
    }

    private mutating func newProcess() -> Process {
        defer {
            nextName += 1
            nextSession += 1
        }
        model.live.insert(nextSession)
        return Process(
            name: "m\(nextName)",
            session: nextSession,
            machine: GroupMember(stream: model.stream, window: window, tracksTakes: true)
        )
    }

    /// One random step, then the invariants.
    mutating func step(faultsAllowed: Bool = true) throws {
        let index = Int(random.next() % 2)
        let roll = random.next() % 100
        trace.append(.roll(roll, processes[index].name))
        switch roll {
        case 0..<12: model.publish(key: [nil, "a", "b", "c"][Int(random.next() % 4)])
        case 12..<30: send(index)
        case 30..<48: answer(index)
        case 48..<62: try place(index)
        case 62..<74: take(index)
        case 74..<90: acknowledge(index)
        case 90..<93: processes[index].machine.renewalTimerFired()
        case 93..<95 where faultsAllowed: blip(index)
        case 95..<97 where faultsAllowed: kill(index)
        case 97..<98 where faultsAllowed: expireLeases(index)
        case 98..<100 where faultsAllowed: cancel(index)
        default: break
        }
        try check()
    }

    /// Sends the member's next statement; the database executes it at once (a statement is atomic).
    mutating func send(_ index: Int) {
        guard processes[index].inFlight == nil else { return }
        let process = processes[index]
        let action = processes[index].machine.nextRound()
        let answer: Answer
        switch action {
        case .none: return
        case .join(let keep):
            let kept = model.join(process.name, session: process.session, keep: keep)
            let acknowledged = Set(process.machine.acknowledgements)
            answer = .joined(lost: keep.filter { !kept.contains($0) && !acknowledged.contains($0) })
        case .round(let acknowledgements, let renew, let want):
            answer = .round(
                model.round(
                    process.name,
                    session: process.session,
                    acknowledgements: acknowledgements,
                    renew: renew,
                    want: want
                )
            )
        case .leave(let acknowledgements, let unplaced):
            let deleted = model.release(process.name, acknowledgements: acknowledgements, keep: [], uncount: unplaced)
            answer = .left(sent: acknowledgements.count, acknowledged: deleted)
        }
        processes[index].inFlight = (action, answer)
        trace.append(.sent(process.name, action, answer))
    }

    /// Hands the member its statement's answer.
    mutating func answer(_ index: Int) {
        guard let (_, answer) = processes[index].inFlight else { return }
        processes[index].inFlight = nil
        switch answer {
        case .joined(let lost): processes[index].machine.joined(lost: lost)
        case .round(let answer):
            if processes[index].machine.roundAnswered(answer) { processes[index].machine.takeoverCheckFired() }
        case .left(let sent, let acknowledged):
            processes[index].machine.leftGroup(sent: sent, acknowledged: acknowledged)
            processes[index] = newProcess()
        }
    }

    /// Offers the member's next delivery to its mailbox, which takes it, and checks key order and exclusivity there.
    mutating func place(_ index: Int) throws {
        guard let delivery = processes[index].machine.nextOffer() else { return }
        // A member whose claims the group may have taken (a blip, a lease that ran out) can still place what it had:
        // the documented cost of at least once. Key order is checked for the others.
        if case .event(let event) = delivery, let key = event.key, !processes[index].faulted {
            for (other, process) in processes.enumerated() where other != index && !process.faulted {
                let earlier = process.machine.held.filter { $0 < event.sequence && model.keys[Int($0) - 1] == key }
                if !earlier.isEmpty {
                    throw Violation(
                        description: "key order: \(processes[index].name) got \(event.sequence) (key \(key)) while "
                            + "\(process.name) holds \(earlier)"
                    )
                }
            }
        }
        if case .event(let event) = delivery {
            placedTimes[event.sequence, default: 0] += 1
            if placedTimes[event.sequence, default: 0] > 1, event.deliveryCount < 2, !processes[index].faulted {
                throw Violation(
                    description: "event \(event.sequence) placed again with delivery count \(event.deliveryCount)"
                )
            }
        }
        processes[index].machine.offered(.placed)
        processes[index].mailbox.append(delivery)
        placements.append((index, delivery))
    }

    mutating func take(_ index: Int) {
        let taken = processes[index].mailbox
        guard !taken.isEmpty else { return }
        processes[index].mailbox = []
        let events = taken.compactMap { if case .event(let event) = $0 { event } else { nil } }
        processes[index].handling += events
        _ = processes[index].machine.took(events.map(\.sequence))
    }

    mutating func acknowledge(_ index: Int) {
        guard !processes[index].handling.isEmpty else { return }
        let event = processes[index].handling.removeFirst()
        _ = processes[index].machine.acknowledge(event.sequence)
    }

    /// The member's connection ends and a new one connects: the statement on the old one is lost (it was executed),
    /// and the old session's lock is released.
    mutating func blip(_ index: Int) {
        faults = true
        model.live.remove(processes[index].session)
        processes[index].session = nextSession
        model.live.insert(nextSession)
        nextSession += 1
        processes[index].inFlight = nil
        processes[index].faulted = true
        processes[index].machine.connected()
    }

    /// `kill -9`: the process and its session are gone; a new member process takes its place.
    mutating func kill(_ index: Int) {
        faults = true
        model.live.remove(processes[index].session)
        processes[index] = newProcess()
    }

    /// The member is stuck past its lease.
    mutating func expireLeases(_ index: Int) {
        faults = true
        processes[index].faulted = true
        model.expireLeases(of: processes[index].name)
    }

    mutating func cancel(_ index: Int) {
        faults = true
        processes[index].faulted = true
        _ = processes[index].machine.cancel()
    }
}
#endif
