#if Postgres
import Foundation
import Logging
import MainlineEvents
import MainlinePostgres
import MetricsTestKit
import PostgresNIO
import ServiceLifecycle
import Testing
import _MainlineTestSupport

/// Retention deletes events; a subscription that had not read them receives one resync per gap, then carries on.
@MainActor
@Suite("StreamRetention: pruning and resync", .serialized)
struct StreamRetentionTests {
    @Test func eventsPrunedWhileASubscriberWasAwayBecomeOneResync() async throws {
        try await PostgresTestCluster.with { cluster in
            let metrics = TestMetrics()
            let subscriber = StreamSubscriber(
                configuration: cluster.configuration,
                options: testOptions(),
                metricsFactory: metrics
            )
            let collector = Collector()
            let subscription = try subscriber.subscribe(
                to: "s",
                from: .after(0),
                into: collector.mailbox,
                decode: decodeText
            )
            try await withPublisher(cluster) { publisher in
                try await whileRunning(subscriber) {
                    for index in 1...5 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
                    try await waitUntil("5 events") { collector.events.count == 5 }
                }
                // Away: 15 more events, of which retention keeps the newest 5 (16...20).
                for index in 6...20 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
                #expect(try await publisher.prune(StreamRetention(maximumCount: 5)) == 15)
                try await whileRunning(subscriber) {
                    try await waitUntil("the events after the gap") { collector.events.count == 10 }
                    try await publisher.publish(bytes: Array("21".utf8), to: "s")
                    try await waitUntil("the event after that") { collector.events.count == 11 }
                }
            }
            #expect(collector.resyncs == [StreamResync(stream: "s", lastDelivered: 5, resumesAfter: 15)])
            #expect(collector.sequences == Array(1...5) + Array(16...21))
            #expect(subscription.counts.resyncs == 1)
            #expect(try metrics.expectCounter("mainline_stream_resyncs", [("stream", "s")]).totalValue == 1)
            #expect(subscription.lastSequence == 21)
        }
    }

    @Test func aStreamPrunedToNothingResyncsToItsHeadAndSequencesAreNotReused() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for index in 1...3 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
                #expect(try await publisher.prune(StreamRetention(maximumAge: .zero)) == 3)
                // A subscriber resuming after 1 finds nothing left: one resync to the head, 3.
                let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
                let collector = Collector()
                _ = try subscriber.subscribe(to: "s", from: .after(1), into: collector.mailbox, decode: decodeText)
                try await whileRunning(subscriber) {
                    try await waitUntil("a resync") { collector.resyncs.count == 1 }
                    // The head survives pruning: the next event is 4, not 1.
                    #expect(try await publisher.publish(bytes: Array("4".utf8), to: "s") == 4)
                    try await waitUntil("event 4") { collector.events.count == 1 }
                }
                #expect(collector.resyncs == [StreamResync(stream: "s", lastDelivered: 1, resumesAfter: 3)])
                #expect(collector.values == ["4"])
            }
        }
    }

    @Test func aSchemaOfItsOwnKeepsItsStreamsApartFromTheDefaultOnes() async throws {
        try await PostgresTestCluster.with { cluster in
            let schema = try StreamSchema(tablePrefix: "billing_stream", channel: "billing_streams")
            let subscriber = StreamSubscriber(
                configuration: cluster.configuration,
                schema: schema,
                options: testOptions()
            )
            let collector = Collector()
            _ = try subscriber.subscribe(to: "s", from: .oldestAvailable, into: collector.mailbox, decode: decodeText)
            try await withPublisher(cluster) { defaultPublisher in
                try await withPublisher(cluster, schema: schema) { publisher in
                    for index in 1...4 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
                    try await defaultPublisher.publish(bytes: Array("elsewhere".utf8), to: "s")
                    #expect(try await publisher.prune(StreamRetention(maximumCount: 2)) == 2)
                    try await whileRunning(subscriber) {
                        try await waitUntil("the two kept events") { collector.events.count == 2 }
                        try await publisher.publish(bytes: Array("5".utf8), to: "s")
                        try await waitUntil("event 5") { collector.events.count == 3 }
                    }
                }
            }
            // `.oldestAvailable` starts at what retention kept, without a resync; the default schema's "s" is
            // another stream.
            #expect(collector.values == ["3", "4", "5"])
            #expect(collector.resyncs.isEmpty)
        }
    }

    @Test func retentionByAgeKeepsRecentEventsAndByCountKeepsEachStreamsNewest() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for index in 1...4 {
                    try await publisher.publish(bytes: Array("\(index)".utf8), to: "a")
                    try await publisher.publish(bytes: Array("\(index)".utf8), to: "b")
                }
                #expect(try await publisher.prune(StreamRetention(maximumAge: .seconds(3_600))) == 0)
                #expect(try await publisher.prune(StreamRetention(maximumCount: 3)) == 2)
                #expect(try await publisher.prune(StreamRetention(maximumCount: 3)) == 0)
                let remaining = try await cluster.withConnection { connection in
                    var rows: [String] = []
                    let query: PostgresQuery =
                        "SELECT stream || sequence::text FROM mainline_stream_events ORDER BY stream, sequence"
                    for try await row in try await connection.query(query, logger: .init(label: "test")).decode(
                        String.self
                    ) { rows.append(row) }
                    return rows
                }
                #expect(remaining == ["a2", "a3", "a4", "b2", "b3", "b4"])
            }
        }
    }

    @Test func theRetentionServicePrunesAtStartAndAgainEveryIntervalUntilTheGracefulShutdown() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for index in 1...10 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
                let metrics = TestMetrics()
                let service = StreamRetentionService(
                    publisher: publisher,
                    retention: StreamRetention(maximumCount: 3),
                    interval: .milliseconds(100),
                    metricsFactory: metrics
                )
                let group = ServiceGroup(services: [service], logger: Logger(label: "test.group"))
                let running = Task { try await group.run() }
                defer { running.cancel() }
                try await waitUntil("the first prune") { try await remaining(in: cluster) == "8,9,10" }
                for index in 11...15 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
                try await waitUntil("a later prune") { try await remaining(in: cluster) == "13,14,15" }
                await group.triggerGracefulShutdown()
                try await running.value
                #expect(try metrics.expectCounter("mainline_stream_pruned").totalValue == 12)
            }
        }
    }

    /// The sequences stream `s` keeps, in order, joined with commas.
    private func remaining(in cluster: PostgresTestCluster) async throws -> String {
        try await cluster.psql(
            "SELECT string_agg(sequence::text, ',' ORDER BY sequence) FROM mainline_stream_events WHERE stream = 's'"
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
#endif
