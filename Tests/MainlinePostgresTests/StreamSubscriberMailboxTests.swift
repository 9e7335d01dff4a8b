#if Postgres
import Logging
import MainlineEvents
import MainlineLoop
import MainlinePostgres
import PostgresNIO
import ServiceLifecycle
import Testing
import _MainlineTestSupport

@MainActor
@Suite("StreamSubscriber: mailboxes that wait and keep, and the subscriber as a service", .serialized)
struct StreamSubscriberMailboxTests {
    @Test func aFullSuspendingMailboxMakesItsStreamWaitForRoomWhileOtherStreamsGoOn() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for index in 1...40 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "slow") }
            }
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let slow = BoundedMailbox<StreamDelivery<String>>(capacity: 4, overflow: .suspend)
            let slowSubscription = try subscriber.subscribe(to: "slow", from: .after(0), into: slow, decode: decodeText)
            let fast = Collector()
            _ = try subscriber.subscribe(to: "fast", from: .after(0), into: fast.mailbox, decode: decodeText)
            var taken: [String] = []
            try await whileRunning(subscriber) {
                try await waitUntil("the slow mailbox full, and its stream waiting") {
                    slow.counts.accepted == 4 && slowSubscription.counts.waits == 1
                }
                // While the slow stream waits for room, the subscriber reads the others.
                try await withPublisher(cluster) { publisher in
                    for index in 1...10 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "fast") }
                }
                try await waitUntil("the other stream's events") { fast.events.count == 10 }
                // One wait, not a poll: nothing was offered again meanwhile.
                #expect(slowSubscription.counts.waits == 1)
                #expect(slowSubscription.counts.refused == 0)
                #expect(slow.counts.accepted == 4)
                // The consumer catches up; the stream follows as room appears.
                try await waitUntil("all 40 slow events") {
                    for delivery in slow.takeAll() {
                        if case .event(let event) = delivery { taken.append(event.value) }
                    }
                    return taken.count == 40
                }
            }
            #expect(taken == (1...40).map { "\($0)" })
            #expect(fast.values == (1...10).map { "\($0)" })
            #expect(slowSubscription.counts.delivered == 40)
            #expect(slowSubscription.counts.refused == 0)
            // Each wait began with an offer the full mailbox refused; each was then placed by the waiting sender.
            #expect(slow.counts.rejected == slowSubscription.counts.waits)
            #expect(slow.counts.accepted == 40)
        }
    }

    @Test func cancellingASubscriptionThatWaitsForRoomWithdrawsTheWaitingDelivery() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for index in 1...10 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
            }
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let mailbox = BoundedMailbox<StreamDelivery<String>>(capacity: 2, overflow: .suspend)
            let subscription = try subscriber.subscribe(to: "s", from: .after(0), into: mailbox, decode: decodeText)
            try await whileRunning(subscriber) {
                try await waitUntil("the mailbox full, the stream waiting") {
                    mailbox.counts.accepted == 2 && subscription.counts.waits == 1
                }
                subscription.cancel()
                // The withdrawn sender counts as rejected (its offer and its wait), and nothing more arrives.
                try await waitUntil("the waiting delivery withdrawn") { mailbox.counts.rejected == 2 }
                #expect(mailbox.takeAll().count == 2)
                #expect(mailbox.take() == nil)
            }
            #expect(subscription.lastSequence == 2)
            #expect(subscription.counts.delivered == 2)
            #expect(mailbox.counts.accepted == 2)
        }
    }

    @Test func aKeyedMailboxKeepsEachKeysNewestEventAndAResyncUnderItsOwnKey() async throws {
        enum Key: Hashable, Sendable {
            case item(Substring)
            case resync
        }
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for text in ["a=1", "b=1", "gone", "a=2", "c=1", "b=2", "a=3"] {
                    try await publisher.publish(bytes: Array(text.utf8), to: "items")
                }
                // Events 1...2 are pruned: a subscriber from the start resyncs past them.
                #expect(try await publisher.prune(StreamRetention(maximumCount: 5)) == 2)
            }
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let items = KeyedMailbox<Key, StreamDelivery<String>>()
            let subscription = try subscriber.subscribe(to: "items", from: .after(0), into: items, decode: decodeText) {
                switch $0 {
                case .event(let event): .item(event.value.prefix { $0 != "=" })
                case .resync: .resync
                }
            }
            try await whileRunning(subscriber) {
                try await waitUntil("all 7 read") { subscription.lastSequence == 7 }
            }
            let taken = items.takeAll()
            #expect(taken.map(\.key) == [.resync, .item("gone"), .item("a"), .item("c"), .item("b")])
            let values = taken.compactMap { pair -> String? in
                guard case .event(let event) = pair.value else { return nil }
                return event.value
            }
            #expect(values == ["gone", "a=3", "c=1", "b=2"])
            #expect(subscription.counts.delivered == 5)
            #expect(subscription.counts.resyncs == 1)
            #expect(items.counts.dropped == 1)  // a=2, replaced by a=3
        }
    }

    @Test func asAServiceItStopsAtAGracefulShutdownAndReturnsNormallyWhenCancelled() async throws {
        try await PostgresTestCluster.with { cluster in
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let group = ServiceGroup(services: [subscriber], logger: Logger(label: "test.group"))
            let running = Task { try await group.run() }
            defer { running.cancel() }
            try await waitUntil("listening") { subscriber.counts.isConnected }
            await group.triggerGracefulShutdown()
            try await waitUntil("stopped by the graceful shutdown") { !subscriber.counts.isConnected }
            try await running.value  // no error: the subscriber returned

            // Cancelled outside a group: it returns, and may run again.
            let again = Task { try await subscriber.run() }
            try await waitUntil("listening again") { subscriber.counts.isConnected }
            again.cancel()
            try await again.value
            #expect(subscriber.counts.connections == 2)
        }
    }
}
#endif
