import Foundation
import Testing
import _MainlineTestSupport

/// `pubsub-server --postgres`: two servers on different ports sharing one throwaway PostgreSQL database
/// (`PostgresTestCluster`), driven by real TCP clients. Every wait is a client's bounded read; nothing sleeps.
@Suite("Example: pubsub-server cluster over PostgreSQL", .serialized, .timeLimit(.minutes(3)))
struct PubSubServerClusterTests {
    /// Starts two servers on free ports with `--postgres` and `arguments`, runs `body` with them, and checks that
    /// both stop cleanly on SIGTERM (they are stopped when `body` throws too, so a failed test leaves none running).
    @MainActor
    private func withTwoServers(
        arguments: [String] = [],
        _ body: @MainActor (PostgresTestCluster, ServerProcess, ServerProcess) async throws -> Void
    ) async throws {
        try await PostgresTestCluster.with { cluster in
            let a = try ServerProcess("pubsub-server", arguments: ["--postgres", cluster.url] + arguments)
            let b: ServerProcess
            do {
                b = try ServerProcess("pubsub-server", arguments: ["--postgres", cluster.url] + arguments)
            } catch {
                _ = await a.terminate()
                throw error
            }
            do {
                try await body(cluster, a, b)
            } catch {
                _ = (await a.terminate(), await b.terminate())
                throw error
            }
            let (endA, endB) = (await a.terminate(), await b.terminate())
            #expect(endA.status == 0, "\(endA.standardError)")
            #expect(endB.status == 0, "\(endB.standardError)")
        }
    }

    /// The next `count` lines `client` reads, fewer when it reads nothing within its receive timeout (or the server
    /// closed): a broken server fails the test within one timeout, not one per line.
    private func lines(_ count: Int, from client: LineClient) async throws -> [String] {
        try await offPool {
            var lines: [String] = []
            while lines.count < count, let line = client.readLine() { lines.append(line) }
            return lines
        }
    }

    /// Subscribes `client` to `topic` and checks the answer.
    private func subscribe(_ client: LineClient, to topic: String) {
        try? client.send("SUB \(topic)")
        #expect(client.readLine() == "OK SUB \(topic)")
    }

    @Test @MainActor func twoServersSharingOneDatabaseDeliverEveryTopicInOneOrder() async throws {
        try await withTwoServers { _, a, b in
            let (subscriberA, subscriberB) = (try LineClient(port: a.port), try LineClient(port: b.port))
            subscribe(subscriberA, to: "news")
            subscribe(subscriberB, to: "news")
            let (publisherA, publisherB) = (try LineClient(port: a.port), try LineClient(port: b.port))
            let fromA = (0..<100).map { "from-a \($0)" }
            let fromB = (0..<200).map { "from-b \($0)" }

            // Both publishers at once, each from a thread of its own: the two servers' PUBs interleave.
            async let sentA: Void = offPool { for message in fromA { try publisherA.send("PUB news \(message)") } }
            async let sentB: Void = offPool { for message in fromB { try publisherB.send("PUB news \(message)") } }
            let total = fromA.count + fromB.count
            async let heardA = lines(total, from: subscriberA)
            async let heardB = lines(total, from: subscriberB)
            _ = try await (sentA, sentB)
            let (onA, onB) = try await (heardA, heardB)

            // One order on both servers (the stream's), holding every message once, each publisher's in its order.
            #expect(onA == onB)
            #expect(onA.filter { $0.hasPrefix("MSG news from-a ") } == fromA.map { "MSG news \($0)" })
            #expect(onA.filter { $0.hasPrefix("MSG news from-b ") } == fromB.map { "MSG news \($0)" })
            #expect(onA.count == total)

            // A PUB answers nothing when it committed: the next line the publishers read answers their STATS.
            try publisherA.send("STATS")
            #expect(publisherA.readLine()?.hasPrefix("STATS clients=2 topics=1 published=100 ") == true)
            try publisherB.send("STATS")
            #expect(publisherB.readLine()?.hasPrefix("STATS clients=2 topics=1 published=200 ") == true)
            // A topic that only one server's clients publish to reaches the other's subscribers too.
            subscribe(subscriberB, to: "sport")
            try publisherA.send("PUB sport goal")
            #expect(subscriberB.readLine() == "MSG sport goal")
        }
    }

    @Test @MainActor func aServerWhoseDatabaseConnectionIsKilledCatchesUpInOrderWithoutDuplicates() async throws {
        try await withTwoServers { cluster, a, b in
            let subscriber = try LineClient(port: a.port)
            subscribe(subscriber, to: "news")
            let publisher = try LineClient(port: b.port)
            // Server A's listener, by the application name it gives it.
            let listener = "pubsub-server-\(a.process.pid)"
            let before = try await cluster.backendProcessID(applicationName: listener)

            let first = (0..<50).map { "MSG news before \($0)" }
            try await offPool { for line in first { try publisher.send("PUB " + line.dropFirst(4)) } }
            #expect(try await lines(first.count, from: subscriber) == first)

            // A's listener is cut mid-stream; B keeps publishing while A reconnects.
            #expect(try await cluster.terminateBackends(applicationName: listener) == 1)
            let meanwhile = (0..<200).map { "MSG news meanwhile \($0)" }
            try await offPool { for line in meanwhile { try publisher.send("PUB " + line.dropFirst(4)) } }
            #expect(try await lines(meanwhile.count, from: subscriber) == meanwhile)

            // Nothing twice: the next line is the next message.
            try publisher.send("PUB news last")
            #expect(subscriber.readLine() == "MSG news last")
            // And it was a new connection that delivered them.
            let after = try await cluster.backendProcessID(applicationName: listener)
            #expect(after != before)
        }
    }

    /// What a server's client gets while its listener is away can only come from the catch-up after the reconnect:
    /// the database refuses new connections until B has published everything, so no notification reaches A.
    @Test @MainActor func aServerKeptFromReconnectingGetsWhatWasPublishedMeanwhileOnceItIsBack() async throws {
        try await withTwoServers { cluster, a, b in
            let subscriber = try LineClient(port: a.port)
            subscribe(subscriber, to: "news")
            let publisher = try LineClient(port: b.port)
            try publisher.send("PUB news before")
            #expect(subscriber.readLine() == "MSG news before")

            // B's pool keeps the connection it has; A's listener is ended and cannot connect again.
            let ended = try await cluster.psql(
                """
                ALTER DATABASE \(cluster.database) ALLOW_CONNECTIONS false;
                SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                    WHERE application_name = 'pubsub-server-\(a.process.pid)'
                """,
                database: "postgres"
            )
            #expect(ended.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
            let meanwhile = (0..<100).map { "MSG news meanwhile \($0)" }
            try await offPool { for line in meanwhile { try publisher.send("PUB " + line.dropFirst(4)) } }
            // Every PUB committed (a PUB answers only when it fails): STATS is the next line.
            try publisher.send("STATS")
            #expect(publisher.readLine()?.hasPrefix("STATS ") == true)

            try await cluster.psql("ALTER DATABASE \(cluster.database) ALLOW_CONNECTIONS true", database: "postgres")
            // Less than the listener's 30 s poll, which would read the stream anyway, and more than its longest
            // reconnect delay (10 s): only the catch-up that follows LISTEN delivers within it.
            subscriber.receiveTimeout = .seconds(20)
            #expect(try await lines(meanwhile.count, from: subscriber) == meanwhile)
            try publisher.send("PUB news last")
            #expect(subscriber.readLine() == "MSG news last")
        }
    }

    @Test @MainActor func aHundredKilobyteMessageArrivesIntactOnTheOtherServerAndALongerLineGetsTheUsualError()
        async throws
    {
        try await withTwoServers(arguments: ["--max-line-bytes", "131072"]) { _, a, b in
            let subscriber = try LineClient(port: a.port)
            subscribe(subscriber, to: "big")
            let publisher = try LineClient(port: b.port)
            // 100 KB that a truncation or a reordering of chunks would change.
            let message = (0..<10_000).map { String(format: "%09d ", $0) }.joined()
            #expect(message.utf8.count == 100_000)
            try await offPool { try publisher.send("PUB big \(message)") }
            let heard = try await offPool { subscriber.readLine() }
            #expect(heard?.utf8.count == "MSG big ".utf8.count + 100_000)
            #expect(heard == "MSG big \(message)")

            // A topic name that cannot be a stream is refused, naming why.
            try subscriber.send("SUB bell\u{7}")
            #expect(
                subscriber.readLine() == #"ERR topic "bell\u{07}" cannot be a stream: it holds a control character"#
            )
            try publisher.send("PUB bell\u{7} ding")
            #expect(publisher.readLine() == #"ERR topic "bell\u{07}" cannot be a stream: it holds a control character"#)

            // One byte over the limit: today's error, and the connection is closed.
            let tooLong = "PUB big " + String(repeating: "x", count: 131_073 - "PUB big ".utf8.count)
            try await offPool { try publisher.send(tooLong) }
            #expect(publisher.readLine() == "ERR line too long (limit 131072 bytes)")
            #expect(publisher.readLine() == nil)
            #expect(publisher.isClosedByServer)
        }
    }

    @Test @MainActor func aPublishWhileTheDatabaseIsDownGetsAnErrorAndTheServerRecoversWhenItIsBack() async throws {
        try await withTwoServers { cluster, a, b in
            let subscriber = try LineClient(port: a.port)
            subscribe(subscriber, to: "news")
            let publisher = try LineClient(port: b.port)
            try publisher.send("PUB news one")
            #expect(subscriber.readLine() == "MSG news one")

            try await cluster.stop()
            try publisher.send("PUB news lost")
            let error = try await offPool { publisher.readLine() }
            #expect(error?.hasPrefix("ERR PUB news failed: ") == true, "\(error ?? "<nothing>")")

            try await cluster.start()
            // The pool may need a moment to connect again: publish until a PUB is answered by nothing (it committed).
            let committed = try await offPool { () -> Int? in
                for attempt in 0..<20 {
                    try publisher.send("PUB news two \(attempt)")
                    try publisher.send("STATS")
                    if publisher.readLine()?.hasPrefix("STATS ") == true { return attempt }
                    _ = publisher.readLine()  // the ERR came first; STATS follows it
                }
                return nil
            }
            #expect(committed != nil)
            // The listener reconnects by itself and reads on (a PUB given up on may have committed after all).
            let heard = try await offPool { subscriber.readLine { $0.hasPrefix("MSG news two ") } }
            #expect(heard != nil)
        }
    }

    @Test(arguments: [
        (
            ["--postgres", "mysql://me@127.0.0.1/db"],
            "--postgres needs postgres://user[:password]@host[:port]/database"
        ),
        (["--postgres", "mysql://me@127.0.0.1/db"], #"scheme "mysql" is not postgres or postgresql"#),
        (["--postgres", "postgres://127.0.0.1/db"], "the URL names no user"),
        (["--postgres", "postgres://me@127.0.0.1:5432"], "the URL names no database"),
        (["--postgres", "postgres://me@127.0.0.1/db?sslmode=allow"], #"sslmode "allow" is not supported"#),
        (["--postgres", "postgres://me@127.0.0.1/db?timeout=3"], #"parameter "timeout" is not supported"#),
        (["--postgres", "127.0.0.1:5432"], "--postgres needs"),
        (["--postgres"], "'--postgres <url>'"),
        (["--max-line-bytes", "100"], "--max-line-bytes needs a number from 128 to 16777216, got '100'"),
        (["--max-line-bytes", "big"], "'--max-line-bytes <n>'"),
    ])
    func aBadClusterFlagExitsWithStatus64NamingIt(arguments: [String], message: String) async throws {
        try await CommandLineChecks.expectUsageError("pubsub-server", arguments, saying: message)
    }
}
