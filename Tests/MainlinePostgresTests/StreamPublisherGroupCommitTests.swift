#if Postgres
import Foundation
import Logging
import MainlinePostgres
import PostgresNIO
import Testing
import _MainlineTestSupport

/// Group commit: concurrent publishes to a stream share one statement, one transaction and one hint; every caller
/// still gets its own sequence, and a failed commit fails every caller in it.
@MainActor
@Suite("StreamPublisher: group commit", .serialized)
struct StreamPublisherGroupCommitTests {
    @Test func eightConcurrentPublishersEachGetTheirOwnSequenceAndTheStreamStaysGapless() async throws {
        try await PostgresTestCluster.with { cluster in
            let perCaller = 150
            let (published, counts) = try await withPublisher(cluster) { publisher in
                let published = try await withThrowingTaskGroup(of: [(Int64, String)].self) { group in
                    for caller in 0..<8 {
                        group.addTask {
                            var mine: [(Int64, String)] = []
                            for index in 0..<perCaller {
                                let text = "\(caller)-\(index)"
                                mine.append((try await publisher.publish(bytes: Array(text.utf8), to: "s"), text))
                            }
                            return mine
                        }
                    }
                    var all: [[(Int64, String)]] = []
                    for try await mine in group { all.append(mine) }
                    return all
                }
                return (published, publisher.counts)
            }
            let stored = try await storedEvents(of: "s", in: cluster)
            let payloadAt = Dictionary(uniqueKeysWithValues: stored.map { ($0.sequence, $0.payload) })
            // Gapless, and each caller's payload is at the sequence it was given.
            #expect(stored.map(\.sequence) == Array(1...Int64(8 * perCaller)))
            #expect(published.joined().allSatisfy { payloadAt[$0.0] == $0.1 })
            #expect(Set(published.joined().map(\.0)).count == 8 * perCaller)
            // One caller's publishes, one after another, are in its order.
            for mine in published { #expect(mine.map(\.0) == mine.map(\.0).sorted()) }
            #expect(counts.published == 8 * perCaller)
            // Callers waited together: fewer commits than events (and never more than 8 events in one).
            #expect(counts.commits < 8 * perCaller)
            #expect(counts.largestCommit > 1 && counts.largestCommit <= 8)
            #expect(counts.queued == 0)
        }
    }

    @Test func publishesThatWaitTogetherShareOneTransactionAndOneHint() async throws {
        try await PostgresTestCluster.with { cluster in
            let (first, others, counts) = try await withPublisher(cluster) { publisher in
                _ = try await publisher.lastSequence(of: "s")  // creates the tables
                let (first, others) = try await whileHoldingTheHead(of: "s", on: cluster) {
                    // The first publish's statement is sent and waits for the head; the next seven queue behind it.
                    let first = Task { try await publisher.publish(bytes: Array("first".utf8), to: "s") }
                    try await waitUntilAWriterWaitsForALock(cluster)
                    let others = (1...7).map { index in
                        Task { try await publisher.publish(bytes: Array("other \(index)".utf8), to: "s") }
                    }
                    try await waitUntil("seven publishes queued", state: { progress(of: publisher) }) {
                        publisher.counts.queued == 7
                    }
                    return (first, others)
                }
                var sequences: [Int64] = []
                for other in others { sequences.append(try await other.value) }
                return (try await first.value, sequences, publisher.counts)
            }
            #expect(first == 2)
            #expect(others.sorted() == Array(3...9))
            #expect(counts.commits == 2)
            #expect(counts.largestCommit == 7)
            let stored = try await storedEvents(of: "s", in: cluster)
            #expect(stored.map(\.sequence) == Array(1...9))
            // Rows 3...9 were written by one transaction; 1 and 2 each by their own.
            #expect(Set(stored[2...].map(\.transaction)).count == 1)
            #expect(Set(stored.map(\.transaction)).count == 3)
        }
    }

    @Test func aCommitSendsOneHintNamingItsLastSequence() async throws {
        try await PostgresTestCluster.with { cluster in
            let received = try await cluster.withConnection { listener in
                try await withPublisher(cluster) { publisher in
                    _ = try await publisher.lastSequence(of: "s")  // creates the tables
                    // Every hint of the schema's channel, in commit order, until the marker this test sends last.
                    return try await listener.listen(on: "mainline_streams") { hints in
                        try await publisher.publish(bytes: [1], to: "s")
                        let batch = (1...5).map { StreamPublisher.Message(ByteBuffer(bytes: [UInt8($0)])) }
                        try await publisher.publish(contentsOf: batch, to: "s")
                        try await cluster.execute("SELECT pg_notify('mainline_streams', 'end')")
                        var received: [String] = []
                        for try await hint in hints {
                            if hint.payload == "end" { break }
                            received.append(hint.payload)
                        }
                        return received
                    }
                }
            }
            // One hint per commit (not per event), naming the commit's last sequence.
            #expect(received == ["1 s", "6 s"])
        }
    }

    @Test func aFailedCommitFailsEveryCallerInItAndWritesNoneOfThem() async throws {
        try await PostgresTestCluster.with { cluster in
            let (first, outcomes, after, counts) = try await withPublisher(cluster) { publisher in
                _ = try await publisher.lastSequence(of: "s")  // creates the tables
                try await cluster.execute(
                    "ALTER TABLE mainline_stream_events ADD CONSTRAINT no_poison CHECK (payload <> 'poison'::bytea)"
                )
                let (first, others) = try await whileHoldingTheHead(of: "s", on: cluster) {
                    let first = Task { try await publisher.publish(bytes: Array("first".utf8), to: "s") }
                    try await waitUntilAWriterWaitsForALock(cluster)
                    let others = ["a", "b", "poison", "c"].map { text in
                        Task { try await publisher.publish(bytes: Array(text.utf8), to: "s") }
                    }
                    try await waitUntil("four publishes queued", state: { progress(of: publisher) }) {
                        publisher.counts.queued == 4
                    }
                    return (first, others)
                }
                var outcomes: [Result<Int64, any Error>] = []
                for other in others { outcomes.append(await other.result) }
                let after = try await publisher.publish(bytes: Array("after".utf8), to: "s")
                return (try await first.value, outcomes, after, publisher.counts)
            }
            #expect(first == 2)
            // The refused payload took its whole commit with it: every caller in it failed, with the server's error.
            for outcome in outcomes {
                guard case .failure(let error) = outcome else {
                    Issue.record("a publish of the failed commit returned \(outcome)")
                    continue
                }
                #expect((error as? PSQLError)?.serverInfo?[.sqlState] == "23514")  // check_violation
            }
            #expect(counts.failedCommits == 1)
            // Nothing of it was written, and the sequences it would have taken are given to the next commit.
            #expect(after == 3)
            #expect(try await storedEvents(of: "s", in: cluster).map(\.payload) == ["blocker", "first", "after"])
        }
    }

    @Test func aBatchCommitsInOneTransactionWithConsecutiveSequencesAndItsKeys() async throws {
        try await PostgresTestCluster.with { cluster in
            let (batch, empty) = try await withPublisher(cluster) { publisher in
                try await publisher.publish(bytes: Array("single".utf8), to: "s")
                let batch = try await publisher.publish(
                    contentsOf: (1...5).map {
                        StreamPublisher.Message(ByteBuffer(string: "b\($0)"), key: "k\($0 % 2)")
                    },
                    to: "s"
                )
                return (batch, try await publisher.publish(contentsOf: [], to: "s"))
            }
            #expect(batch == Array(2...6))
            #expect(empty.isEmpty)
            let stored = try await storedEvents(of: "s", in: cluster)
            #expect(stored.map(\.payload) == ["single", "b1", "b2", "b3", "b4", "b5"])
            #expect(stored.map(\.key) == [nil, "k1", "k0", "k1", "k0", "k1"])
            #expect(Set(stored[1...].map(\.transaction)).count == 1)
            #expect(stored[0].transaction != stored[1].transaction)
        }
    }
}
#endif
