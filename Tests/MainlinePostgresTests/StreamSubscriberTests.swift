#if Postgres
import CMainlineShims
import Foundation
import MainlineEvents
import MainlinePostgres
import PostgresNIO
import Testing
import _MainlineTestSupport

/// The bridge against a real PostgreSQL server, started by each test (`PostgresTestCluster`).
///
/// Serialized: each test runs a server of its own, and two cores are not enough for several at once.
@MainActor
@Suite("StreamSubscriber: every event once, in order, across failures", .serialized)
struct StreamSubscriberTests {
    /// Events per publisher process in the two-process test (`MAINLINE_PG_EVENTS` overrides it). 1,000 under
    /// ThreadSanitizer: there the two instrumented children, each publishing and subscribing, took 93 s of both cores
    /// beside every other suite, and starved their main-actor consumers past their time limits.
    static let eventsPerPublisher =
        ProcessInfo.processInfo.environment["MAINLINE_PG_EVENTS"].flatMap(Int.init)
        ?? (mainline_is_thread_sanitized() != 0 ? 1_000 : 10_000)

    /// Two processes each publish `eventsPerPublisher` events to one stream while each subscribes to it on its own
    /// main loop; two subscribers in the test process read it too. All four see every event once, in one order.
    @Test func twoProcessesPublishingAndSubscribingEachSeeEveryEventOnceInOneOrder() async throws {
        try await PostgresTestCluster.with { cluster in
            let count = Self.eventsPerPublisher
            let subscribers = (0..<2).map { _ in
                StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            }
            let collectors = [Collector(), Collector()]
            for (subscriber, collector) in zip(subscribers, collectors) {
                _ = try subscriber.subscribe(to: "ticks", from: .after(0), into: collector.mailbox, decode: decodeText)
            }
            var processes: [[String]] = []
            try await whileRunning(subscribers[0]) {
                try await whileRunning(subscribers[1]) {
                    try await waitUntil("both subscribers listening") {
                        subscribers.allSatisfy { $0.counts.isConnected }
                    }
                    let publisher = try ChildProcess.builtProduct("mainline-postgres-publisher")
                    let children = try ["a", "b"].map { name in
                        try ChildProcess(
                            publisher,
                            ["\(cluster.port)", cluster.database, "ticks", name, "\(count)", "\(2 * count)"],
                            standardOutput: .capture,
                            standardError: .capture
                        )
                    }
                    for child in children {
                        let result = await child.finish()
                        #expect(result.status == 0, "\(result.standardOutput.suffix(2_000))\(result.standardError)")
                        processes.append(result.standardOutput.split(separator: "\n").map(String.init))
                    }
                    try await waitUntil(
                        "\(2 * count) events at both subscribers",
                        state: {
                            zip(subscribers, collectors).map { "\(progress(of: $0)), \($1.progress)" }.joined(
                                separator: "; "
                            )
                        }
                    ) {
                        collectors.allSatisfy { $0.events.count >= 2 * count }
                    }
                }
            }
            for collector in collectors {
                #expect(collector.sequences == Array(1...Int64(2 * count)))
                #expect(collector.resyncs.isEmpty)
                for name in ["a", "b"] {
                    let own = collector.values.filter { $0.hasPrefix("\(name) ") }
                    #expect(own == (1...count).map { "\(name) \($0)" })
                }
            }
            #expect(collectors[0].values == collectors[1].values)
            // Each publishing process saw the same: every event once, in sequence order, nothing else.
            let seenHere = collectors[0].events.map { "seen \($0.sequence) \($0.value)" }
            for lines in processes {
                let seen = lines.filter { $0.hasPrefix("seen ") || $0.hasPrefix("resync ") }
                // Compared as a whole, reported briefly: 20,000 lines would drown the log.
                let firstDifference = zip(seen, seenHere).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                #expect(
                    seen == seenHere,
                    "\(seen.count) seen there, \(seenHere.count) here; first difference at \(firstDifference ?? -1)"
                )
                #expect(lines.last == "published \(count)")
            }
            // Both publishers really ran at the same time: their events interleave.
            let firstB = collectors[0].values.firstIndex { $0.hasPrefix("b ") } ?? 0
            let lastA = collectors[0].values.lastIndex { $0.hasPrefix("a ") } ?? 0
            #expect(firstB < lastA, "the two publishers did not overlap; the test proves less than it claims")
        }
    }

    @Test func aCancelledSubscriptionReceivesNothingMoreWhileOthersCarryOn() async throws {
        try await PostgresTestCluster.with { cluster in
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let (cancelled, carriesOn) = (Collector(), Collector())
            // The reader serves a stream's subscriptions in the order they were made, so `carriesOn` receiving an
            // event means `cancelled` would have received it first, had it still been subscribed.
            let first = try subscriber.subscribe(to: "s", from: .after(0), into: cancelled.mailbox, decode: decodeText)
            _ = try subscriber.subscribe(to: "s", from: .after(0), into: carriesOn.mailbox, decode: decodeText)
            try await whileRunning(subscriber) {
                try await withPublisher(cluster) { publisher in
                    try await publisher.publish(bytes: Array("1".utf8), to: "s")
                    try await waitUntil("event 1 at both") {
                        cancelled.events.count == 1 && carriesOn.events.count == 1
                    }
                    first.cancel()
                    first.cancel()  // again: nothing happens
                    try await publisher.publish(bytes: Array("2".utf8), to: "s")
                    try await waitUntil("event 2 at the other") { carriesOn.events.count == 2 }
                }
            }
            #expect(cancelled.values == ["1"])
            #expect(carriesOn.values == ["1", "2"])
            #expect(first.isCancelled)
            #expect(first.lastSequence == 1)
        }
    }

    @Test func aPayloadFarLargerThanANotifyCanCarryArrivesIntact() async throws {
        try await PostgresTestCluster.with { cluster in
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let collector = Collector()
            _ = try subscriber.subscribe(to: "big", from: .after(0), into: collector.mailbox, decode: decodeText)
            let payload = String((0..<100 * 1_024).map { Character(UnicodeScalar(UInt8(65 + $0 % 26))) })
            try await whileRunning(subscriber) {
                _ = try await withPublisher(cluster) { try await $0.publish(bytes: Array(payload.utf8), to: "big") }
                try await waitUntil("the 100 KB event") { collector.events.count == 1 }
            }
            #expect(collector.values == [payload])
            #expect(payload.utf8.count == 102_400)
        }
    }
}
#endif
