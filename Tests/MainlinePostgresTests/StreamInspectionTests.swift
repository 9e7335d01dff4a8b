#if Postgres
import MainlineEvents
import MainlineInspectorSchema
import MainlineLoop
import MainlinePostgres
import PostgresNIO
import Testing
import _MainlineTestSupport

/// The bus in the inspector: once an inspector was started, each stream subscription and group member of the process
/// is in the snapshot's `streams` (what `mainline-console`'s streams view and `--json` show): its position, the stream's
/// head, its lag, what a member holds. The registry is activated as `LoopInspector.start` does, without serving a
/// socket: the inspector's own loop is an `EventLoop`, and a test beside `EventLoopLifecycleTests` must not make one
/// (that test counts the process's live `EventLoop` handles); `LoopInspectorTests` cover the socket.
@MainActor
@Suite("Stream subscriptions and group members in the inspector", .serialized)
struct StreamInspectionTests {
    @Test func theSnapshotShowsEachSubscriptionAndMemberWithItsPositionHeadLagAndClaims() async throws {
        try await PostgresTestCluster.with { cluster in
            _InspectionRegistry.shared.activate()
            try await withPublisher(cluster) { publisher in
                for index in 1...10 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "inspected") }
            }
            let subscriber = StreamSubscriber(
                configuration: cluster.configuration,
                options: testOptions { $0.groupWindow = 4 }
            )
            let collector = Collector()
            _ = try subscriber.subscribe(to: "inspected", from: .after(0), into: collector.mailbox) {
                try decodeText($0)
            }
            // The member's consumer takes nothing: it holds its window of 4, unacknowledged.
            let held = BoundedMailbox<StreamDelivery<String>>(capacity: 100, overflow: .reject)
            let member = try subscriber.subscribe(to: "inspected", group: "g", from: .after(0), into: held) {
                try decodeText($0)
            }
            var streams: [StreamSummary] = []
            try await whileRunning(subscriber) {
                try await waitUntil("the subscription and the member to read", state: { "\(member.counts)" }) {
                    collector.events.count == 10 && member.counts.delivered == 4
                }
                // Through the schema's coder, as the console reads the inspector's answer.
                let snapshot = InspectorSnapshot(
                    pid: 1,
                    process: "test",
                    uptimeSeconds: 0,
                    loops: [],
                    streams: _InspectionRegistry.shared.describe(.init("streams"), as: StreamSummary.self)
                )
                streams = try InspectorJSON.decode(InspectorSnapshot.self, from: InspectorJSON.line(snapshot).utf8)
                    .streams.filter { $0.stream == "inspected" }
            }
            let subscription = try #require(streams.first { $0.kind == "subscription" })
            #expect(subscription.position == 10 && subscription.head == 10)
            #expect(subscription.lagEvents == 0 && subscription.lagSeconds == 0)
            #expect(subscription.delivered == 10 && subscription.group == nil && subscription.held == nil)
            #expect(subscription.connected == true)
            let group = try #require(streams.first { $0.kind == "groupMember" })
            #expect(group.group == "g" && group.member == member.member)
            #expect(group.head == 10 && group.position == 0 && group.lagEvents == 10, "nothing acknowledged yet")
            #expect((group.lagSeconds ?? -1) >= 0, "while it lags: the age of the last event it delivered")
            #expect(group.held == 4 && group.delivered == 4 && group.redelivered == 0)
            #expect(group.lastResyncFrom == nil && group.lastResyncTo == nil)
        }
    }
}
#endif
