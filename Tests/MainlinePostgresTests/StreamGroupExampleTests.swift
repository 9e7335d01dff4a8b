#if Postgres
import MainlineEvents
import MainlinePostgres
import PostgresNIO
import Testing
import _MainlineTestSupport

/// The streams article's example of testing a consumer group (snippet-checked): two members in one test process, each
/// with a window smaller than the backlog, so that the second member to start gets work too.
@MainActor
@Suite("Example: testing a consumer group", .serialized)
struct StreamGroupExampleTests {
    @Test func twoMembersOfOneProcessShareABacklogOnceEachHoldsAWindow() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for index in 1...20 { try await publisher.publish(bytes: Array("job \(index)".utf8), to: "jobs") }
            }
            let configuration = cluster.configuration
            var options = StreamSubscriber.Options()
            options.groupWindow = 5  // each member claims 5 at a time: a backlog of 20 has work for both
            let subscribers = [
                StreamSubscriber(configuration: configuration, options: options),
                StreamSubscriber(configuration: configuration, options: options),
            ]
            let mailboxes = subscribers.map { _ in
                BoundedMailbox<StreamDelivery<String>>(capacity: 20, overflow: .reject)
            }
            let members = try zip(subscribers, mailboxes).map { subscriber, mailbox in
                try subscriber.subscribe(to: "jobs", group: "workers", from: .after(0), into: mailbox) {
                    String(buffer: $0)
                }
            }
            let running = subscribers.map { subscriber in Task { try await subscriber.run() } }
            defer { for task in running { task.cancel() } }

            // Hold every delivery until both members hold a full window: a member that acknowledged at once could
            // claim the whole backlog before the other one had joined.
            var held: [[StreamEvent<String>]] = [[], []]
            var handled: [[Int64]] = [[], []]
            try await waitUntil("both members to hold a window", state: { "\(held.map(\.count))" }) {
                for index in 0..<2 {
                    for case .event(let event) in mailboxes[index].takeAll() { held[index].append(event) }
                }
                return held.allSatisfy { $0.count == 5 }
            }
            // Now do the work and acknowledge it; each member claims again as it acknowledges.
            try await waitUntil("the backlog handled", state: { "\(handled.map(\.count))" }) {
                for index in 0..<2 {
                    for case .event(let event) in mailboxes[index].takeAll() { held[index].append(event) }
                    for event in held[index] {
                        handled[index].append(event.sequence)
                        members[index].acknowledge(event)
                    }
                    held[index] = []
                }
                return handled.joined().count == 20
            }
            for task in running { task.cancel() }
            for task in running { _ = await task.result }
            #expect(handled.allSatisfy { $0.count >= 5 }, "both members did work")
            #expect(handled.joined().sorted() == Array(1...20), "each job once")
        }
    }
}
#endif
