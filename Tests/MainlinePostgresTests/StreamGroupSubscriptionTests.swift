#if Postgres
import MainlineEvents
import MainlinePostgres
import PostgresNIO
import Testing
import _MainlineTestSupport

/// A consumer group member in this process: its mailbox's overflow, acknowledgement, resync and misuse.
@MainActor
@Suite("StreamGroupSubscription: one member's mailbox, acknowledgements and errors", .serialized)
struct StreamGroupSubscriptionTests {
    @Test func aFullRejectMailboxHoldsTheGroupsEventsBackForItsMemberWithoutLosingThem() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for index in 1...30 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
            }
            let subscriber = StreamSubscriber(
                configuration: cluster.configuration,
                options: testOptions { $0.groupWindow = 10 }
            )
            let mailbox = BoundedMailbox<StreamDelivery<String>>(capacity: 3, overflow: .reject)
            let member = try subscriber.subscribe(to: "s", group: "g", from: .after(0), into: mailbox) {
                try decodeText($0)
            }
            var taken: [Int64] = []
            try await whileRunning(subscriber) {
                while taken.count < 30 {
                    try await waitUntil("a delivery", state: { "took \(taken.count); \(member.counts)" }) {
                        mailbox.counts.accepted > mailbox.counts.delivered
                    }
                    for case .event(let event) in mailbox.takeAll() {
                        taken.append(event.sequence)
                        member.acknowledge(event)
                    }
                }
                try await waitUntil("the acknowledgements written", state: { "\(member.counts)" }) {
                    try await cluster.withConnection { connection in
                        try await count("SELECT count(*) FROM mainline_stream_claims", on: connection)
                    } == 0
                }
            }
            #expect(taken == Array(1...30))
            #expect(member.counts.refused > 0, "the mailbox never refused: the test proves less than it claims")
            #expect(member.counts.acknowledged == 30 && member.counts.redelivered == 0)
            #expect(member.unacknowledged == 0)
        }
    }

    @Test func eventsPrunedBeforeTheGroupHandledThemReachAMemberAsOneResync() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for index in 1...10 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
                #expect(try await publisher.prune(StreamRetention(maximumCount: 5)) == 5)
            }
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let collector = Collector()
            let member = try subscriber.subscribe(to: "s", group: "g", from: .after(0), into: collector.mailbox) {
                try decodeText($0)
            }
            try await whileRunning(subscriber) {
                try await waitUntil("events 6 to 10", state: { collector.progress }) { collector.events.count == 5 }
            }
            #expect(collector.resyncs == [StreamResync(stream: "s", lastDelivered: 0, resumesAfter: 5)])
            #expect(collector.sequences == Array(6...10))
            #expect(member.counts.resyncs == 1)
        }
    }

    @Test func misusedGroupSubscriptionsAreTypedErrors() throws {
        let subscriber = StreamSubscriber(
            configuration: .init(host: "localhost", username: "u", password: nil, database: nil, tls: .disable)
        )
        let mailbox = BoundedMailbox<StreamDelivery<String>>(capacity: 10, overflow: .reject)
        #expect {
            try subscriber.subscribe(to: "s", group: "", into: mailbox, decode: decodeText)
        } throws: { error in
            guard case .invalidGroupName("", _) = error as? StreamError else { return false }
            return true
        }
        #expect {
            try subscriber.subscribe(to: "s", group: "g", from: .stored("n"), into: mailbox, decode: decodeText)
        } throws: { error in
            guard case .unsupportedStart(.stored("n", initially: .latest), _) = error as? StreamError else {
                return false
            }
            return true
        }
        _ = try subscriber.subscribe(to: "s", group: "g", into: mailbox, decode: decodeText)
        #expect {
            try subscriber.subscribe(to: "s", group: "h", into: mailbox, decode: decodeText)
        } throws: { error in
            guard case .mailboxAlreadyTracked = error as? StreamError else { return false }
            return true
        }
    }

    private func count(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> Int64 {
        var total: Int64 = 0
        for try await value in try await connection.query(query, logger: .init(label: "test")).decode(Int64.self) {
            total = value
        }
        return total
    }
}
#endif
