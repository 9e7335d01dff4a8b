#if Postgres
import Foundation
import Logging
import MainlineEvents
import MainlinePostgres
import PostgresNIO
import Testing
import _MainlineTestSupport

/// Publishing: writers of one stream are serialised until they commit, so no reader ever passes a late commit.
@MainActor
@Suite("StreamPublisher: late commits and back-pressure", .serialized)
struct StreamPublisherTests {
    @Test func aSecondWriterWaitsForTheFirstToCommitSoALateCommitIsNeverSkipped() async throws {
        try await PostgresTestCluster.with { cluster in
            let logger = Logger(label: "test")
            let collector = try await whileListening(to: "s", on: cluster) { collector in
                try await cluster.withConnection { slow in
                    // The slow writer takes sequence 1 in a transaction it keeps open.
                    try await slow.query("BEGIN", logger: logger)
                    let first = try await StreamPublisher.publish(
                        ByteBuffer(string: "slow"),
                        to: "s",
                        on: slow,
                        logger: logger
                    )
                    #expect(first == 1)
                    try await withPublisher(cluster) { publisher in
                        let fast = Task { try await publisher.publish(bytes: Array("fast".utf8), to: "s") }
                        // The fast writer waits on the stream's head, held by the slow one.
                        try await waitUntilAWriterWaitsForALock(cluster)
                        try await slow.query("COMMIT", logger: logger)
                        #expect(try await fast.value == 2)
                    }
                }
                try await waitUntil("both events") { collector.events.count == 2 }
            }
            #expect(collector.values == ["slow", "fast"])
            #expect(collector.sequences == [1, 2])
        }
    }

    @Test func aRolledBackPublishIsNeverSeenAndGivesItsSequenceBack() async throws {
        try await PostgresTestCluster.with { cluster in
            let logger = Logger(label: "test")
            let collector = try await whileListening(to: "s", on: cluster) { collector in
                try await cluster.withConnection { connection in
                    try await connection.query("BEGIN", logger: logger)
                    let undone = try await StreamPublisher.publish(
                        ByteBuffer(string: "undone"),
                        to: "s",
                        on: connection,
                        logger: logger
                    )
                    #expect(undone == 1)
                    try await connection.query("ROLLBACK", logger: logger)
                }
                let kept = try await withPublisher(cluster) { try await $0.publish(bytes: Array("kept".utf8), to: "s") }
                #expect(kept == 1)
                try await waitUntil("the kept event") { collector.events.count == 1 }
            }
            #expect(collector.values == ["kept"])
            #expect(collector.sequences == [1])
            #expect(collector.resyncs.isEmpty)
        }
    }

    @Test func aFullMailboxThatRefusesHoldsTheStreamBackWithoutLosingAnEvent() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for index in 1...300 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
            }
            // Three places, 300 waiting events read in batches of 100: the mailbox refuses most offers.
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let collector = Collector(capacity: 3)
            let subscription = try subscriber.subscribe(
                to: "s",
                from: .after(0),
                into: collector.mailbox,
                decode: decodeText
            )
            try await whileRunning(subscriber) {
                try await waitUntil("300 events") { collector.events.count == 300 }
            }
            #expect(collector.values == (1...300).map { "\($0)" })
            #expect(subscription.counts.refused > 0)
            #expect(subscription.counts.delivered == 300)
            #expect(collector.mailbox.counts.rejected == subscription.counts.refused)
        }
    }

    @Test func aLatestMailboxKeepsOnlyTheNewestEventAndCountsTheRest() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for index in 1...50 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "state") }
            }
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let latest = LatestMailbox<StreamDelivery<String>>()
            let subscription = try subscriber.subscribe(
                to: "state",
                from: .after(0),
                into: latest,
                decode: decodeText
            )
            try await whileRunning(subscriber) {
                try await waitUntil("all 50 placed") { subscription.lastSequence == 50 }
            }
            guard case .event(let event) = latest.take() else {
                Issue.record("no event waiting")
                return
            }
            #expect(event.value == "50")
            #expect(latest.counts.accepted == 50)
            #expect(latest.counts.dropped == 49)
            #expect(subscription.counts.delivered == 50)
        }
    }

    @Test func jsonPublishedIsDecodedAndAFreshSubscriptionStartsAtTheLatest() async throws {
        struct Order: Codable, Sendable, Equatable {
            var id: Int
            var item: String
        }
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                try await publisher.publish(json: Order(id: 1, item: "before"), to: "orders")
                let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
                let mailbox = BoundedMailbox<StreamDelivery<Order>>(capacity: 10, overflow: .reject)
                let subscription = try subscriber.subscribe(to: "orders", as: Order.self, into: mailbox)
                var received: [Order] = []
                var token: SimpleEventToken?
                mailbox.event.addObserver(&token) { _ in
                    for case .event(let event) in mailbox.takeAll() { received.append(event.value) }
                }
                try await whileRunning(subscriber) {
                    try await waitUntil("the start resolved") { subscription.lastSequence == 1 }
                    try await publisher.publish(json: Order(id: 2, item: "after"), to: "orders")
                    try await waitUntil("the order") { received.count == 1 }
                }
                #expect(received == [Order(id: 2, item: "after")])
                _ = token
            }
        }
    }

    /// The tables' creation runs on every subscriber's connection and every publisher's first use; with the tables in
    /// place it must take no table lock, or it would wait for an outbox transaction left open (and stop every writer
    /// queued behind it).
    @Test func aSubscriberConnectsAndAPublisherStartsWhileAnOutboxTransactionIsOpen() async throws {
        try await PostgresTestCluster.with { cluster in
            let logger = Logger(label: "test")
            _ = try await whileListening(to: "s", on: cluster) { _ in }  // the tables, indexes and key column exist
            try await cluster.withConnection { outbox in
                try await outbox.query("BEGIN", logger: logger)
                try await StreamPublisher.publish(ByteBuffer(string: "open"), to: "s", on: outbox, logger: logger)
                let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
                let collector = Collector()
                _ = try subscriber.subscribe(to: "s", from: .after(0), into: collector.mailbox, decode: decodeText)
                try await whileRunning(subscriber) {
                    try await waitUntil("the subscriber listening while the transaction is open") {
                        subscriber.counts.isConnected
                    }
                    let other = try await withPublisher(cluster) { try await $0.publish(bytes: [1], to: "other") }
                    #expect(other == 1)
                    try await outbox.query("COMMIT", logger: logger)
                    try await waitUntil("the outbox's event", state: { collector.progress }) {
                        collector.events.count == 1
                    }
                }
                #expect(collector.values == ["open"])
            }
        }
    }

    @Test func lastSequenceIsWhereASubscriptionStartsToMissNothingPublishedFromNowOn() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                // Before any table exists: the publisher creates them, and a stream never published to is at 0.
                #expect(try await publisher.lastSequence(of: "s") == 0)
                for index in 1...3 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
                let start = try await publisher.lastSequence(of: "s")
                #expect(start == 3)
                // Published after the position was read, before the subscriber ever read the stream: not missed.
                try await publisher.publish(bytes: Array("4".utf8), to: "s")
                let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
                let collector = Collector()
                _ = try subscriber.subscribe(to: "s", from: .after(start), into: collector.mailbox, decode: decodeText)
                try await whileRunning(subscriber) {
                    try await waitUntil("the event after the position") { collector.events.count == 1 }
                }
                #expect(collector.values == ["4"])
                await #expect(throws: StreamError.self) { try await publisher.lastSequence(of: "") }
            }
        }
    }
}
#endif
