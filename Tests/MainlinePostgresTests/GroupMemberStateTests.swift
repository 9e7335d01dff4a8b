#if Postgres
import CMainlineShims
import Foundation
import PostgresNIO
import Testing
@testable import MainlinePostgres
import _MainlineTestSupport

/// The group member's state machine, without a database: seeded random schedules of two member processes and the
/// group (`GroupExploration`), each step one event, the group's invariants checked after every step and every event
/// acknowledged at the end. A failure names its seed; `GroupExploration(seed:window:)` replays it.
@Suite("GroupMember: a consumer group member's state machine, explored without a database")
struct GroupMemberStateTests {
    /// Schedules with every kind of step, faults included (blips, `kill -9`, stuck members, cancellations).
    /// (Each exploration runs on a thread of its own, `offPool`: seconds of computation, a minute and more under
    /// ThreadSanitizer, must not hold a thread of the concurrency pool that the database tests beside it need.)
    @Test(
        .enabled(
            if: mainline_is_thread_sanitized() == 0,
            "a pure state machine on one thread: nothing for ThreadSanitizer to check, and ten times slower under it"
        )
    )
    func seededSchedulesKeepTheGroupsInvariantsAndAcknowledgeEveryEvent() async throws {
        let (explored, failure) = try await offPool { () -> (Int, String?) in
            var explored = 0
            for seed in UInt64(0)..<6_000 {
                var world = GroupExploration(seed: seed, window: Int(seed % 4) + 1)
                do {
                    for _ in 0..<40 { try world.step() }
                    try world.drain()
                } catch {
                    return (explored, "seed \(seed): \(error)\nits last steps:\n" + world.report(last: 40))
                }
                explored += 1
            }
            return (explored, nil)
        }
        if let failure { Issue.record("\(failure)") }
        #expect(explored == 6_000)
    }

    /// Schedules without faults: then no event may ever be delivered twice or with a delivery count above 1.
    @Test(
        .enabled(
            if: mainline_is_thread_sanitized() == 0,
            "a pure state machine on one thread: nothing for ThreadSanitizer to check, and ten times slower under it"
        )
    )
    func withoutFaultsNoEventIsDeliveredTwice() async throws {
        let (explored, failure) = try await offPool { () -> (Int, String?) in
            var explored = 0
            for seed in UInt64(1_000_000)..<1_004_000 {
                var world = GroupExploration(seed: seed, window: Int(seed % 3) + 2)
                do {
                    for _ in 0..<40 { try world.step(faultsAllowed: false) }
                    try world.drain()
                } catch {
                    return (explored, "seed \(seed): \(error)")
                }
                if world.faults { return (explored, "seed \(seed): a fault without faults allowed") }
                explored += 1
            }
            return (explored, nil)
        }
        if let failure { Issue.record("\(failure)") }
        #expect(explored == 4_000)
    }

    /// A member that joins again keeps what its consumer acknowledged until the acknowledgement is sent: stepped by
    /// hand (the schedule round four's rejoin fault needed).
    @Test func aRejoiningMemberKeepsItsUnsentAcknowledgements() {
        var member = GroupMember(stream: "s", window: 4, tracksTakes: false)
        #expect(member.nextRound() == .join(keep: []))
        member.joined(lost: [])
        #expect(member.nextRound() == .round(acknowledgements: [], renew: [], want: 4))
        let events = (1...2).map { sequence in
            StreamEvent(
                stream: "s",
                sequence: Int64(sequence),
                publishedAt: Date(timeIntervalSince1970: 0),
                key: nil,
                value: ByteBuffer(string: "e\(sequence)"),
                deliveryCount: 1
            )
        }
        let answer = GroupMember.RoundAnswer(events: events)
        _ = member.roundAnswered(answer)
        while member.nextOffer() != nil { member.offered(.placed) }
        #expect(member.acknowledge(1) == false)
        member.connected()
        guard case .join(let keep) = member.nextRound() else {
            Issue.record("a new connection must join first")
            return
        }
        #expect(Set(keep) == [1, 2], "the unacknowledged event and the acknowledgement not sent yet")
        member.joined(lost: [])
        #expect(member.nextRound() == .round(acknowledgements: [1], renew: [], want: 3))
    }
}

#endif
