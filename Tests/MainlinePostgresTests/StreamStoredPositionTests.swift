#if Postgres
import Logging
import MainlineEvents
import MainlinePostgres
import PostgresNIO
import Testing
import _MainlineTestSupport

/// `StreamStart.stored`: the database keeps how far the consumer took, and a restarted subscriber resumes after it.
@MainActor
@Suite("StreamSubscriber: stored positions survive a restart", .serialized)
struct StreamStoredPositionTests {
    @Test func aRestartResumesRightAfterTheLastEventTheConsumerTookNotTheLastPlaced() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for index in 1...10 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
            }
            let options = testOptions { $0.positionFlushInterval = .milliseconds(50) }
            let first = StreamSubscriber(configuration: cluster.configuration, options: options)
            let mailbox = BoundedMailbox<StreamDelivery<String>>(capacity: 100, overflow: .reject)
            let subscription = try first.subscribe(
                to: "s",
                from: .stored("reader", initially: .after(0)),
                into: mailbox,
                decode: decodeText
            )
            try await whileRunning(first) {
                try await waitUntil("10 events placed", state: { "\(mailbox.counts)" }) {
                    mailbox.counts.accepted == 10
                }
                #expect(subscription.lastSequence == 10)
                #expect(try await storedPosition("reader", cluster) == 0)
                for expected in 1...2 { #expect(sequence(of: mailbox.take()) == Int64(expected)) }
                // Written as it advances, in batches, while the subscriber runs.
                try await waitUntil("position 2 stored") { try await storedPosition("reader", cluster) == 2 }
                #expect(sequence(of: mailbox.take()) == 3)
                #expect(subscription.takenSequence == 3)
            }
            // Written when the subscriber stopped, though the timer had no time to.
            #expect(try await storedPosition("reader", cluster) == 3)

            let second = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let collector = Collector()
            _ = try second.subscribe(to: "s", from: .stored("reader"), into: collector.mailbox, decode: decodeText)
            try await whileRunning(second) {
                try await waitUntil("events 4 to 10", state: { collector.progress }) { collector.events.count >= 7 }
            }
            #expect(collector.sequences == Array(4...10))
            #expect(collector.resyncs.isEmpty)
        }
    }

    @Test func aStoredPositionThatRetentionPrunedPastBeginsWithOneResync() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for index in 1...10 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
                let first = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
                let mailbox = BoundedMailbox<StreamDelivery<String>>(capacity: 100, overflow: .reject)
                _ = try first.subscribe(to: "s", from: .stored("reader", initially: .after(0)), into: mailbox) {
                    try decodeText($0)
                }
                try await whileRunning(first) {
                    try await waitUntil("10 events placed", state: { "\(mailbox.counts)" }) {
                        mailbox.counts.accepted == 10
                    }
                    _ = mailbox.take()
                    _ = mailbox.take()
                }
                #expect(try await storedPosition("reader", cluster) == 2)
                #expect(try await publisher.prune(StreamRetention(maximumCount: 5)) == 5)
            }
            let second = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let collector = Collector()
            _ = try second.subscribe(to: "s", from: .stored("reader"), into: collector.mailbox, decode: decodeText)
            try await whileRunning(second) {
                try await waitUntil("events 6 to 10", state: { collector.progress }) { collector.events.count >= 5 }
            }
            #expect(collector.resyncs == [StreamResync(stream: "s", lastDelivered: 2, resumesAfter: 5)])
            #expect(collector.sequences == Array(6...10))
        }
    }

    @Test func aNameStoredForAnotherStreamEndsTheSubscriptionWithATypedError() async throws {
        try await PostgresTestCluster.with { cluster in
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let (one, other) = (Collector(), Collector())
            let first = try subscriber.subscribe(to: "a", from: .stored("name"), into: one.mailbox, decode: decodeText)
            // In one subscriber, a second use of the name is refused at once.
            #expect(throws: StreamError.self) {
                try subscriber.subscribe(to: "b", from: .stored("name"), into: other.mailbox, decode: decodeText)
            }
            try await whileRunning(subscriber) {
                try await waitUntil("the position read") { first.takenSequence != nil }
            }
            let elsewhere = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let second = try elsewhere.subscribe(
                to: "b",
                from: .stored("name"),
                into: other.mailbox,
                decode: decodeText
            )
            try await whileRunning(elsewhere) {
                try await waitUntil("the subscription ended") { second.failure != nil }
            }
            guard case .positionNameInUse("name", stream: "b", otherStream: "a") = second.failure else {
                Issue.record("unexpected failure: \(String(describing: second.failure))")
                return
            }
            #expect(second.isCancelled)
        }
    }

    @Test func misusedStoredStartsAreTypedErrors() throws {
        let subscriber = StreamSubscriber(
            configuration: .init(
                host: "localhost",
                username: "u",
                password: nil,
                database: nil,
                tls: .disable
            )
        )
        let mailbox = BoundedMailbox<StreamDelivery<String>>(capacity: 10, overflow: .reject)
        #expect {
            try subscriber.subscribe(to: "s", from: .stored(""), into: mailbox, decode: decodeText)
        } throws: { error in
            guard case .invalidPositionName("", _) = error as? StreamError else { return false }
            return true
        }
        #expect {
            try subscriber.subscribe(to: "s", from: .stored("n", initially: .stored("m")), into: mailbox) {
                try decodeText($0)
            }
        } throws: { error in
            guard case .unsupportedStart = error as? StreamError else { return false }
            return true
        }
        _ = try subscriber.subscribe(to: "s", from: .stored("n"), into: mailbox, decode: decodeText)
        #expect {
            try subscriber.subscribe(to: "t", from: .stored("m"), into: mailbox, decode: decodeText)
        } throws: { error in
            guard case .mailboxAlreadyTracked(positionName: "m") = error as? StreamError else { return false }
            return true
        }
    }

    private func sequence(of delivery: StreamDelivery<String>?) -> Int64? {
        guard case .event(let event) = delivery else { return nil }
        return event.sequence
    }

    /// The position the database keeps under `name`, or `nil`.
    private func storedPosition(_ name: String, _ cluster: PostgresTestCluster) async throws -> Int64? {
        try await cluster.withConnection { connection in
            var position: Int64?
            let query: PostgresQuery = "SELECT last_sequence FROM mainline_stream_positions WHERE name = \(name)"
            for try await value in try await connection.query(query, logger: Logger(label: "test")).decode(Int64.self) {
                position = value
            }
            return position
        }
    }
}
#endif
