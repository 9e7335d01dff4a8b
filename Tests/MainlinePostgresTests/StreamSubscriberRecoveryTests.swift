#if Postgres
import Foundation
import MainlineEvents
import MainlinePostgres
import MetricsTestKit
import PostgresNIO
import Testing
import _MainlineTestSupport

/// The subscriber's connection dies, freezes or loses its server: it notices, reconnects, and places every event
/// once, in order.
@MainActor
@Suite("StreamSubscriber: recovery", .serialized)
struct StreamSubscriberRecoveryTests {
    @Test func killingTheListeningConnectionMidStreamLosesNothingAndRepeatsNothing() async throws {
        try await PostgresTestCluster.with { cluster in
            // A reconnect delay long enough that the events published right after a kill land while it is away. No
            // health check: the kills are what this test counts, and under load (ThreadSanitizer beside the other
            // suites) a check can time out on a healthy connection and add a reconnect of its own.
            let options = testOptions {
                $0.initialReconnectDelay = .milliseconds(500)
                $0.healthCheckInterval = .seconds(3_600)
            }
            let metrics = TestMetrics()
            let subscriber = StreamSubscriber(
                configuration: cluster.configuration,
                options: options,
                metricsFactory: metrics
            )
            let collector = Collector()
            _ = try subscriber.subscribe(to: "s", from: .after(0), into: collector.mailbox, decode: decodeText)
            try await whileRunning(subscriber) {
                try await withPublisher(cluster) { publisher in
                    try await waitUntil("listening", state: { progress(of: subscriber) }) {
                        subscriber.counts.isConnected
                    }
                    // Killed while events are being published. Every wait below is on progress: it fails only when
                    // neither side has moved for a long time, and then says what each was doing.
                    let published = PublishedCount()
                    let sides: @MainActor () -> String = {
                        "\(published.progress); \(progress(of: subscriber)); \(collector.progress)"
                    }
                    let publishing = Task {
                        for index in 1...1_000 {
                            try await publisher.publish(bytes: Array("\(index)".utf8), to: "s")
                            published.count = index
                        }
                    }
                    try await waitUntil("200 events", state: sides) { collector.events.count >= 200 }
                    #expect(try await cluster.terminateBackends(applicationName: options.applicationName) == 1)
                    try await publishing.value
                    try await waitUntil("1,000 events and a second connection", state: sides) {
                        collector.events.count >= 1_000 && subscriber.counts.connections >= 2
                    }
                    // Killed, then events published while it is away and none after: only the catch-up that
                    // follows LISTEN can place them.
                    try await waitUntil("listening again", state: sides) { subscriber.counts.isConnected }
                    #expect(try await cluster.terminateBackends(applicationName: options.applicationName) == 1)
                    for index in 1_001...1_050 {
                        try await publisher.publish(bytes: Array("\(index)".utf8), to: "s")
                        published.count = index
                    }
                    try await waitUntil("1,050 events", state: sides) { collector.events.count >= 1_050 }
                }
            }
            #expect(collector.sequences == Array(1...1_050))
            #expect(collector.values == (1...1_050).map { "\($0)" })
            #expect(collector.resyncs.isEmpty)
            #expect(subscriber.counts.connections >= 3)
            #expect(try metrics.expectCounter("mainline_stream_reconnects").totalValue == 2)
        }
    }

    @Test func aFrozenServerIsNoticedByTheHealthCheckAndReplaced() async throws {
        try await PostgresTestCluster.with { cluster in
            let options = testOptions {
                $0.healthCheckInterval = .milliseconds(100)
                $0.healthCheckTimeout = .milliseconds(300)
            }
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: options)
            let collector = Collector()
            _ = try subscriber.subscribe(to: "s", from: .after(0), into: collector.mailbox, decode: decodeText)
            try await whileRunning(subscriber) {
                try await waitUntil("listening") { subscriber.counts.isConnected }
                // SIGSTOP the listening backend: its socket stays open, but nothing answers (a frozen server or a
                // cut network). Only the health check can notice.
                let backend = try await cluster.backendProcessID(applicationName: options.applicationName)
                kill(backend, SIGSTOP)
                defer { kill(backend, SIGCONT) }
                try await waitUntil("a failure noticed", state: { progress(of: subscriber) }) {
                    subscriber.counts.connectionFailures >= 1
                }
                try await waitUntil("a second connection", state: { progress(of: subscriber) }) {
                    subscriber.counts.connections >= 2 && subscriber.counts.isConnected
                }
                try await withPublisher(cluster) { try await $0.publish(bytes: Array("after".utf8), to: "s") }
                try await waitUntil("the event published after the freeze") { collector.events.count == 1 }
            }
            #expect(collector.values == ["after"])
        }
    }

    @Test func aDatabaseStoppedAndRestartedIsRecoveredFromWithoutHelp() async throws {
        try await PostgresTestCluster.with { cluster in
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let collector = Collector()
            _ = try subscriber.subscribe(to: "s", from: .after(0), into: collector.mailbox, decode: decodeText)
            try await whileRunning(subscriber) {
                try await withPublisher(cluster) { publisher in
                    for index in 1...10 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
                }
                try await waitUntil("10 events") { collector.events.count == 10 }
                try await cluster.stop()
                try await waitUntil("the lost connection noticed") { !subscriber.counts.isConnected }
                try await cluster.start()
                try await withPublisher(cluster) { publisher in
                    for index in 11...20 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
                }
                try await waitUntil("20 events", state: { "\(progress(of: subscriber)); \(collector.progress)" }) {
                    collector.events.count >= 20
                }
            }
            #expect(collector.values == (1...20).map { "\($0)" })
            #expect(subscriber.counts.connections >= 2)
            #expect(collector.resyncs.isEmpty)
        }
    }
}
#endif
