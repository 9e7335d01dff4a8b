#if Postgres
import Foundation
import Logging
import MainlinePostgres
import PostgresNIO
import Testing
import _MainlineTestSupport

/// What `body` returned or threw.
@MainActor
func resultOf<T>(_ body: @MainActor () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

/// A publish has a deadline: it is answered by then, and a publish whose caller was told it timed out does not commit
/// afterwards; with an idempotency key, publishing again commits once.
@MainActor
@Suite("StreamPublisher: deadlines and idempotency keys", .serialized)
struct StreamPublisherDeadlineTests {
    @Test func aPublishWhileTheDatabaseIsStoppedTimesOutAndNeverCommitsOnceItIsBack() async throws {
        try await PostgresTestCluster.with { cluster in
            let (timedOut, after, counts) = try await withPublisher(cluster) { publisher in
                #expect(try await publisher.publish(bytes: Array("before".utf8), to: "s") == 1)
                try await cluster.stop()
                // The server closed the pool's connection as it stopped; a pool that has not read that close yet
                // hands the publish the dead connection, which fails it at once (not sent: nothing to commit). Such a
                // publish is tried again, as a caller would: the one that finds no connection must time out.
                var started = ContinuousClock.now
                var outcome: Result<Int64, any Error>
                var attempts = 0
                repeat {
                    attempts += 1
                    started = ContinuousClock.now
                    outcome = await resultOf {
                        try await publisher.publish(bytes: Array("lost".utf8), to: "s", timeout: .milliseconds(500))
                    }
                } while attempts < 5 && Self.failedOnAClosedConnection(outcome)
                let waited = ContinuousClock.now - started
                try await cluster.start()
                // The pool connects again by itself; this publish waits for it (its own deadline is long: the pool's
                // backoff grows while the server is down, up to a minute between attempts, and under ThreadSanitizer
                // one CI run's stop and start took a minute; 120 s was once not enough there).
                let after = try await publisher.publish(bytes: Array("after".utf8), to: "s", timeout: .seconds(360))
                #expect(waited < .seconds(30))  // the deadline answered it, not the pool's own give-up (a minute)
                return (outcome, after, publisher.counts)
            }
            guard case .failure(StreamError.publishTimedOut(let stream, let timeout, let mayHaveCommitted)) = timedOut
            else {
                Issue.record("expected publishTimedOut, got \(timedOut)")
                return
            }
            #expect(stream == "s" && timeout == .milliseconds(500))
            #expect(!mayHaveCommitted)  // it never got a connection, so it was never sent
            #expect(counts.timedOut == 1)
            // The publish given up on did not commit when the database came back.
            #expect(after == 2)
            #expect(try await storedEvents(of: "s", in: cluster).map(\.payload) == ["before", "after"])
        }
    }

    @Test func aStatementStillWaitingForTheHeadAtItsDeadlineIsRefusedByTheDatabaseLater() async throws {
        try await PostgresTestCluster.with { cluster in
            let (outcome, after, counts) = try await withPublisher(cluster) { publisher in
                _ = try await publisher.lastSequence(of: "s")  // creates the tables
                let outcome = try await whileHoldingTheHead(of: "s", on: cluster) {
                    // Sent, and waiting for the head when its deadline passes: the caller is answered at once.
                    let outcome = await resultOf {
                        try await publisher.publish(bytes: Array("late".utf8), to: "s", timeout: .milliseconds(300))
                    }
                    try await waitUntilTheWaitingStatementIsOlderThan(.milliseconds(300), in: cluster)
                    return outcome
                }
                // The head is free: the statement goes on, finds its deadline passed, and fails instead of committing.
                try await waitUntil("the late statement ended", state: { progress(of: publisher) }) {
                    publisher.counts.failedCommits == 1
                }
                return (outcome, try await publisher.publish(bytes: Array("after".utf8), to: "s"), publisher.counts)
            }
            guard case .failure(StreamError.publishTimedOut(_, _, let mayHaveCommitted)) = outcome else {
                Issue.record("expected publishTimedOut, got \(outcome)")
                return
            }
            #expect(mayHaveCommitted)  // its statement had been sent
            #expect(counts.timedOut == 1)
            #expect(after == 2)
            #expect(try await storedEvents(of: "s", in: cluster).map(\.payload) == ["blocker", "after"])
        }
    }

    @Test func aPublishRetriedWithItsIdempotencyKeyAfterATimeoutCommitsOnce() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                _ = try await publisher.lastSequence(of: "s")  // creates the tables
                let first = try await whileHoldingTheHead(of: "s", on: cluster) {
                    let outcome = await resultOf {
                        try await publisher.publish(
                            bytes: Array("order 7".utf8),
                            to: "s",
                            idempotencyKey: "order-7",
                            timeout: .milliseconds(300)
                        )
                    }
                    try await waitUntilTheWaitingStatementIsOlderThan(.milliseconds(300), in: cluster)
                    return outcome
                }
                guard case .failure(StreamError.publishTimedOut(_, _, true)) = first else {
                    Issue.record("expected an ambiguous publishTimedOut, got \(first)")
                    return
                }
                // Retried until it is answered (the first attempt's statement may still be running): once it is,
                // the event is in the stream once, and every later retry answers with the same sequence.
                let retried = try await publisher.publish(
                    bytes: Array("order 7".utf8),
                    to: "s",
                    idempotencyKey: "order-7"
                )
                let again = try await publisher.publish(
                    bytes: Array("order 7".utf8),
                    to: "s",
                    idempotencyKey: "order-7"
                )
                #expect(retried == 2 && again == 2)
                // A batch with a known key and a key twice commits each key once.
                let batch = try await publisher.publish(
                    contentsOf: [
                        StreamPublisher.Message(ByteBuffer(string: "order 7"), idempotencyKey: "order-7"),
                        StreamPublisher.Message(ByteBuffer(string: "order 8"), idempotencyKey: "order-8"),
                        StreamPublisher.Message(ByteBuffer(string: "order 8"), idempotencyKey: "order-8"),
                        StreamPublisher.Message(ByteBuffer(string: "no key")),
                    ],
                    to: "s"
                )
                #expect(batch == [2, 3, 3, 4])
                #expect(publisher.counts.published == 3)
            }
            #expect(
                try await storedEvents(of: "s", in: cluster).map(\.payload) == [
                    "blocker", "order 7", "order 8", "no key",
                ]
            )
        }
    }

    @Test func retentionForgetsAnIdempotencyKeyWithItsEvent() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                let first = try await publisher.publish(bytes: [1], to: "s", idempotencyKey: "a")
                #expect(first == 1)
                #expect(try await publisher.publish(bytes: [2], to: "s", idempotencyKey: "b") == 2)
                #expect(try await publisher.prune(StreamRetention(maximumCount: 1)) == 1)
                // "a" went with event 1: published again, it commits again. "b" is still known.
                #expect(try await publisher.publish(bytes: [1], to: "s", idempotencyKey: "a") == 3)
                #expect(try await publisher.publish(bytes: [2], to: "s", idempotencyKey: "b") == 2)
            }
            let keys = try await cluster.psql("SELECT idempotency_key FROM mainline_stream_published_keys ORDER BY 1")
            #expect(keys.split(whereSeparator: \.isNewline) == ["a", "b"])
        }
    }

    @Test func keysAndIdempotencyKeysAreValidatedBeforeAnythingIsSent() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                let long = String(repeating: "k", count: StreamSchema.maximumKeyLength + 1)
                await #expect(throws: StreamError.self) { try await publisher.publish(bytes: [1], to: "s", key: "") }
                do {
                    try await publisher.publish(bytes: [1], to: "s", key: long)
                    Issue.record("a key too long was published")
                } catch StreamError.invalidKey(_, let role, let reason) {
                    #expect(role == "key")
                    #expect(reason.contains("longer than \(StreamSchema.maximumKeyLength) bytes"))
                }
                do {
                    try await publisher.publish(bytes: [1], to: "s", idempotencyKey: "a\nb")
                    Issue.record("an idempotency key with a newline was published")
                } catch StreamError.invalidKey(_, let role, _) {
                    #expect(role == "idempotency key")
                }
                #expect(publisher.counts.commits == 0)
            }
        }
    }

    /// Whether `outcome` is a publish that failed because its pooled connection had been closed by the server (a
    /// stopped server, before the pool noticed).
    private static func failedOnAClosedConnection(_ outcome: Result<Int64, any Error>) -> Bool {
        guard case .failure(let error) = outcome, let failure = error as? PSQLError else { return false }
        return failure.code == .clientClosedConnection || failure.code == .serverClosedConnection
    }
}
#endif
