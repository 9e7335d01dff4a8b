#if Postgres
import Foundation
import MainlineEvents
import MainlinePostgres
import MetricsTestKit
import PostgresNIO
import Testing
import _MainlineTestSupport

/// Bad input from the database is logged, counted and skipped; the subscriber carries on.
@MainActor
@Suite("StreamSubscriber: bad input", .serialized)
struct StreamSubscriberBadInputTests {
    @Test func malformedHintsUnknownStreamsAndUndecodablePayloadsAreReportedAndSkipped() async throws {
        try await PostgresTestCluster.with { cluster in
            let (logger, log) = RecordingLogHandler.logger()
            let metrics = TestMetrics()
            let subscriber = StreamSubscriber(
                configuration: cluster.configuration,
                options: testOptions(),
                logger: logger,
                metricsFactory: metrics
            )
            let collector = Collector()
            let subscription = try subscriber.subscribe(
                to: "s",
                from: .after(0),
                into: collector.mailbox,
                decode: decodeText
            )
            try await whileRunning(subscriber) {
                try await waitUntil("listening") { subscriber.counts.isConnected }
                try await cluster.execute("NOTIFY mainline_streams, 'garbage'")
                try await cluster.execute("NOTIFY mainline_streams, '7 nobody-reads-this'")
                // A hint for a sequence the table does not have: read, nothing found, nothing placed.
                try await cluster.execute("NOTIFY mainline_streams, '999 s'")
                try await withPublisher(cluster, metricsFactory: metrics) { publisher in
                    try await publisher.publish(bytes: [0xFF, 0xFE, 0x00], to: "s")  // not UTF-8
                    try await publisher.publish(bytes: Array("ok".utf8), to: "s")
                }
                try await waitUntil("the good event") { collector.events.count == 1 }
            }
            // One connection heard every hint; a reconnect in between would rightly miss the hints sent while it was
            // away (the catch-up read still places the events), so the counts below assume it did not happen.
            #expect(
                subscriber.counts.connections == 1,
                "reconnected: \(log.messages(atLeast: .warning).joined(separator: "; "))"
            )
            #expect(collector.values == ["ok"])
            #expect(collector.sequences == [2])
            #expect(collector.resyncs.isEmpty)
            #expect(subscription.counts.undecodable == 1)
            #expect(subscription.lastSequence == 2)
            #expect(subscriber.counts.malformedHints == 1)
            #expect(subscriber.counts.unknownStreamHints == 1)
            for kind in ["malformed_hint", "unknown_stream_hint", "undecodable_payload"] {
                #expect(try metrics.expectCounter("mainline_stream_bad_input", [("kind", kind)]).totalValue == 1)
            }
            #expect(try metrics.expectCounter("mainline_stream_published", [("stream", "s")]).totalValue == 2)
            #expect(try metrics.expectCounter("mainline_stream_delivered", [("stream", "s")]).totalValue == 1)
            let lag = try metrics.expectRecorder("mainline_stream_lag_seconds", [("stream", "s")])
            #expect(lag.values.count == 1 && lag.values.allSatisfy { $0 >= 0 && $0 < 60 })
            let warnings = log.messages(atLeast: .warning)
            #expect(warnings.contains { $0.contains("malformed stream hint \"garbage\"") })
            #expect(warnings.contains { $0.contains("stream \"s\" event 1: payload not decodable: NotText()") })
            #expect(
                log.messages(atLeast: .debug).contains { $0.contains("nobody-reads-this") && $0.contains("sequence=7") }
            )
        }
    }

    @Test func invalidNamesAreRefusedWithErrorsThatSayWhy() throws {
        #expect(throws: StreamError.self) { try StreamSchema(tablePrefix: "Robert'); DROP TABLE x; --", channel: "c") }
        #expect(throws: StreamError.self) { try StreamSchema(tablePrefix: "ok", channel: "9starts_with_digit") }
        let schema = try StreamSchema(tablePrefix: "app_stream", channel: "app_streams")
        #expect(schema.tablePrefix == "app_stream")
        do {
            _ = try StreamSchema(tablePrefix: "", channel: "c")
            Issue.record("an empty prefix was accepted")
        } catch {
            #expect(error.description.contains("invalid table prefix \"\""))
        }
    }

    @Test func runningASubscriberTwiceAtOnceThrowsInsteadOfSharingItsConnection() async throws {
        // Port 1: nothing listens, so the first run keeps failing to connect and retrying (and counting).
        let subscriber = StreamSubscriber(
            configuration: .init(
                host: "127.0.0.1",
                port: 1,
                username: "nobody",
                password: nil,
                database: nil,
                tls: .disable
            ),
            options: testOptions()
        )
        try await whileRunning(subscriber) {
            try await waitUntil("the first run trying to connect") { subscriber.counts.connectionFailures >= 1 }
            do {
                try await subscriber.run()
                Issue.record("a second run() started")
            } catch StreamError.alreadyRunning {
                // expected
            }
        }
    }

    @Test func subscribingToAnInvalidStreamNameThrowsAnErrorNamingIt() async throws {
        let subscriber = StreamSubscriber(
            configuration: .init(host: "127.0.0.1", username: "nobody", password: nil, database: nil, tls: .disable)
        )
        let collector = Collector()
        for name in ["", "line\nbreak", String(repeating: "x", count: StreamSchema.maximumStreamNameLength + 1)] {
            do {
                _ = try subscriber.subscribe(to: name, into: collector.mailbox, decode: decodeText)
                Issue.record("\(name.debugDescription) was accepted")
            } catch {
                guard case .invalidStreamName(let refused, _) = error else {
                    Issue.record("unexpected error \(error)")
                    continue
                }
                #expect(refused == name)
            }
        }
    }
}
#endif
