#if Postgres
import PostgresNIO
@testable import MainlinePostgres

/// The invariants of a consumer group, checked after every step, and the end of a schedule: the live members run until
/// nothing moves, and every event must then be acknowledged.
extension GroupExploration {
    /// Throws the first invariant that does not hold:
    /// - a member holds at most its window;
    /// - no resync (the model deletes no event, so a resync is always a fault: round four's item 1);
    /// - two members whose claims nobody took from them never hold the same event (round four's item 1: a live member
    ///   handed an event twice);
    /// - while nothing failed, no event is placed twice and none with a delivery count above 1 (and, checked as it is
    ///   placed, an event placed again always has a delivery count above 1);
    /// - the group's `handed` never passes the stream's head, and every handed event is a claim or acknowledged.
    func check() throws {
        for process in processes where process.machine.held.count > window {
            throw Violation(description: "\(process.name) holds \(process.machine.held.count) > window \(window)")
        }
        for case (_, .resync(let resync)) in placements {
            throw Violation(description: "resync with nothing deleted: \(resync)")
        }
        let exclusive = processes.filter { !$0.faulted }
        for (index, first) in exclusive.enumerated() {
            for second in exclusive[(index + 1)...] {
                let both = Set(first.machine.held).intersection(second.machine.held)
                    .union(Set(first.handling.map(\.sequence)).intersection(second.handling.map(\.sequence)))
                if !both.isEmpty {
                    throw Violation(description: "\(first.name) and \(second.name) both hold \(both.sorted())")
                }
            }
        }
        if !faults {
            var seen = Set<Int64>()
            for case (_, .event(let event)) in placements {
                guard seen.insert(event.sequence).inserted, event.deliveryCount == 1 else {
                    throw Violation(
                        description: "event \(event.sequence) placed again (delivery count \(event.deliveryCount)) "
                            + "while nothing failed"
                    )
                }
            }
        }
        if model.handed > model.head {
            throw Violation(description: "handed \(model.handed) past the head \(model.head)")
        }
    }

    /// Runs every member, without faults, until nothing moves (every member's statement answered, its backlog placed,
    /// taken and acknowledged); then every event of the stream must be acknowledged: no claim left and `handed` at the
    /// head.
    mutating func drain() throws {
        for index in processes.indices where processes[index].machine.cancelled {
            // A cancelled member leaves; a new one takes its place.
            while processes[index].machine.cancelled {
                send(index)
                answer(index)
            }
        }
        for index in processes.indices {
            // Due for a renewal and any takeover check: a member idle beside a dead one runs a round.
            processes[index].machine.renewalTimerFired()
        }
        var quiet = 0
        var steps = 0
        while quiet < 3 {
            let before = progress
            for index in processes.indices {
                answer(index)
                send(index)
                answer(index)
                while processes[index].machine.backlog.first != nil { try place(index) }
                take(index)
                while !processes[index].handling.isEmpty { acknowledge(index) }
                send(index)
                answer(index)
            }
            try check()
            quiet = progress == before ? quiet + 1 : 0
            steps += 1
            if steps > 10_000 { throw Violation(description: "drain does not end: \(progress)") }
        }
        if !model.claims.isEmpty || model.handed != model.head {
            let claims = model.claims.sorted { $0.key < $1.key }.prefix(8).map { "\($0.key): \($0.value)" }
            throw Violation(
                description: "drained, but handed \(model.handed) of \(model.head) and claims left: \(claims)"
            )
        }
    }

    /// What changes while the group makes progress.
    private var progress: [Int] {
        [model.claims.count, Int(model.handed), placements.count]
            + processes.flatMap { [$0.machine.acknowledgements.count, $0.machine.held.count] }
    }
}
#endif
