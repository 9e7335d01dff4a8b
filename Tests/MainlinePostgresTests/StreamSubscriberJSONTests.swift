#if Postgres
import Foundation
import Logging
import MainlineEvents
import MainlinePostgres
import PostgresNIO
import Testing
import _MainlineTestSupport

/// What a subscriber hands over beside the payload (the event's key), JSON into every mailbox kind, and what it logs
/// when its connection is back.
@MainActor
@Suite("StreamSubscriber: keys, JSON into every mailbox, and the connection back", .serialized)
struct StreamSubscriberJSONTests {
    struct Quote: Codable, Sendable, Equatable {
        var symbol: String
        var price: Int
    }

    enum QuoteKey: Hashable, Sendable {
        case symbol(String)
        case resync
    }

    @Test func anEventsKeyReachesTheSubscriberAndAnEventWithoutOneHasNone() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                try await publisher.publish(bytes: Array("keyed".utf8), to: "s", key: "customer-7")
                try await publisher.publish(bytes: Array("plain".utf8), to: "s")
                try await publisher.publish(
                    contentsOf: [StreamPublisher.Message(ByteBuffer(string: "batched"), key: "customer-8")],
                    to: "s"
                )
            }
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let collector = Collector()
            _ = try subscriber.subscribe(to: "s", from: .after(0), into: collector.mailbox, decode: decodeText)
            try await whileRunning(subscriber) {
                try await waitUntil("three events", state: { collector.progress }) { collector.events.count == 3 }
            }
            #expect(collector.values == ["keyed", "plain", "batched"])
            #expect(collector.events.map(\.key) == ["customer-7", nil, "customer-8"])
        }
    }

    @Test func jsonIntoALatestAndAKeyedMailboxKeepsWhatEachKeeps() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for (symbol, price) in [("A", 1), ("B", 1), ("A", 2)] {
                    try await publisher.publish(json: Quote(symbol: symbol, price: price), to: "quotes")
                }
                try await publisher.publish(bytes: Array("not json".utf8), to: "quotes")
            }
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let latest = LatestMailbox<StreamDelivery<Quote>>()
            let keyed = KeyedMailbox<QuoteKey, StreamDelivery<Quote>>()
            let toLatest = try subscriber.subscribe(to: "quotes", from: .after(0), as: Quote.self, into: latest)
            let toKeyed = try subscriber.subscribe(to: "quotes", from: .after(0), as: Quote.self, into: keyed) {
                switch $0 {
                case .event(let event): .symbol(event.value.symbol)
                case .resync: .resync
                }
            }
            try await whileRunning(subscriber) {
                try await waitUntil("all four read by both") {
                    toLatest.lastSequence == 4 && toKeyed.lastSequence == 4
                }
            }
            guard case .event(let newest) = latest.take() else {
                Issue.record("no quote in the latest mailbox")
                return
            }
            #expect(newest.value == Quote(symbol: "A", price: 2))
            let kept = keyed.takeAll().compactMap { pair -> Quote? in
                guard case .event(let event) = pair.value else { return nil }
                return event.value
            }
            #expect(kept == [Quote(symbol: "A", price: 2), Quote(symbol: "B", price: 1)])  // in each key's first order
            // The payload that is not JSON was skipped by both, and counted.
            #expect(toLatest.counts.undecodable == 1 && toKeyed.counts.undecodable == 1)
        }
    }

    @Test func aConnectionBackAfterFailuresIsLoggedWithHowLongItWasAway() async throws {
        try await PostgresTestCluster.with { cluster in
            let (logger, log) = RecordingLogHandler.logger()
            let options = testOptions { $0.healthCheckInterval = .seconds(3_600) }
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: options, logger: logger)
            try await whileRunning(subscriber) {
                try await waitUntil("listening", state: { progress(of: subscriber) }) { subscriber.counts.isConnected }
                #expect(log.messages(atLeast: .info).isEmpty)
                #expect(try await cluster.terminateBackends(applicationName: options.applicationName) == 1)
                try await waitUntil("listening again", state: { progress(of: subscriber) }) {
                    subscriber.counts.connections == 2 && subscriber.counts.isConnected
                }
            }
            let lines = log.messages(atLeast: .info)
            #expect(lines.contains { $0.hasPrefix("stream subscriber: listening connection failed") })
            let back = lines.filter { $0.hasPrefix("stream subscriber: listening again") }
            #expect(back.count == 1)
            #expect(back.first?.contains("away=") == true && back.first?.contains("failedAttempts=1") == true)
        }
    }
}
#endif
