import Foundation
import Testing
import _MainlineTestSupport

/// `QSUB` on a server of its own, with real TCP clients: a group's clients share a topic's messages, each message to
/// one of them, while a plain `SUB` gets every message.
@Suite("Example: pubsub-server queue groups over TCP", .serialized, .timeLimit(.minutes(2)))
struct PubSubServerQueueGroupTests {
    /// The `MSG` lines `client` reads before the answer to a `STATS` it sends now, and that answer. Commands and
    /// messages are queued for a client in the order the server performs them, so every message of a `PUB` the server
    /// performed before this `STATS` comes first.
    static func messagesBeforeStats(of client: LineClient) async throws -> (messages: [String], stats: String?) {
        try client.send("STATS")
        return try await offPool {
            var messages: [String] = []
            while let line = client.readLine() {
                if line.hasPrefix("STATS ") { return (messages, line) }
                messages.append(line)
            }
            return (messages, nil)
        }
    }

    @Test func theClientsOfAGroupShareATopicEachMessageOnceWhileASubscriberGetsEveryMessage() async throws {
        let server = try PubSubServerTests.Server()
        let (workerA, workerB) = (try server.client(), try server.client())
        for worker in [workerA, workerB] {
            try worker.send("QSUB workers jobs")
            #expect(worker.readLine() == "OK QSUB workers jobs")
        }
        try workerA.send("QSUB workers jobs")
        #expect(workerA.readLine() == "ERR already in group workers of jobs")
        let watcher = try server.client()
        try watcher.send("SUB jobs")
        #expect(watcher.readLine() == "OK SUB jobs")

        let count = 1_000
        let all = (0..<count).map { "MSG jobs job \($0)" }
        let publisher = try server.client()
        async let watched = offPool { (0..<count).map { _ in watcher.readLine() ?? "<closed>" } }
        try await offPool { for line in all { try publisher.send("PUB " + line.dropFirst(4)) } }
        // The subscriber has every message in order: the server performed every PUB.
        #expect(try await watched == all)

        let (heardA, statsA) = try await Self.messagesBeforeStats(of: workerA)
        let (heardB, _) = try await Self.messagesBeforeStats(of: workerB)
        // Each message once, on one client of the group, and both took a share.
        #expect((heardA + heardB).sorted() == all.sorted())
        #expect(Set(heardA).isDisjoint(with: heardB))
        #expect(!heardA.isEmpty && !heardB.isEmpty, "A got \(heardA.count), B got \(heardB.count)")
        #expect(statsA?.contains(" groups=1 ") == true, "\(statsA ?? "no STATS")")

        // UNSUB leaves the group too: the rest of the group gets everything.
        try workerB.send("UNSUB jobs")
        #expect(workerB.readLine() == "OK UNSUB jobs")
        let more = (0..<10).map { "MSG jobs more \($0)" }
        try await offPool { for line in more { try publisher.send("PUB " + line.dropFirst(4)) } }
        #expect(try await offPool { (0..<more.count).map { _ in watcher.readLine() ?? "<closed>" } } == more)
        #expect(try await Self.messagesBeforeStats(of: workerA).messages == more)
        #expect(try await Self.messagesBeforeStats(of: workerB).messages == [])
        try workerB.send("UNSUB jobs")
        #expect(workerB.readLine() == "ERR not subscribed to jobs")
        #expect(await server.terminate().status == 0)
    }

    @Test func aMalformedQSUBGetsAnErrorNamingWhatIsWrong() async throws {
        let server = try PubSubServerTests.Server()
        let client = try server.client()
        try client.send("QSUB workers")
        #expect(client.readLine() == "ERR usage: QSUB <group> <topic>")
        try client.send("QSUB \(String(repeating: "g", count: 65)) jobs")
        #expect(client.readLine()?.hasPrefix("ERR invalid group 'ggg") == true)
        try client.send("QSUB workers \(String(repeating: "t", count: 65))")
        #expect(client.readLine()?.hasPrefix("ERR invalid topic 'ttt") == true)
        #expect(await server.terminate().status == 0)
    }
}
