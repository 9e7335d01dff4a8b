import Foundation
import Testing
import _MainlineTestSupport

@testable import pubsub_server

#if canImport(Glibc)
import Glibc
#endif

/// `pubsub-server` under a client that publishes as fast as it can, with 50 subscribers: what the server holds for
/// it is counted (the main loop's pending posts, from `DEBUG`), never timed; every wait is for progress.
extension PubSubServerTests {
    /// How many posts may wait on the loop while one client floods and `connections` are open: the flooder's
    /// commands (``CommandBacklog/State/limit``) and, for every connection, a write-completion report.
    static func floodPendingBound(connections: Int) -> Int {
        CommandBacklog.State.limit + connections
    }

    /// How many times the flood runs, each on a fresh server with every core kept busy: `PUBSUB_FLOOD_RUNS` (1 unless
    /// set; 10 to show that reading never stays stopped).
    static let floodRuns = Int(ProcessInfo.processInfo.environment["PUBSUB_FLOOD_RUNS"] ?? "") ?? 1

    /// The recipe of issue 33 item 3, counted: 50 subscribers, one client flooding `PUB`s. Under CPU load, where the
    /// server's threads are preempted between stopping a client's reads and resuming them: a resume that was lost
    /// would stop the flood for good, and `published` would stop moving.
    @Test(arguments: 1...floodRuns)
    func aClientPublishingAsFastAsItCanIsReadOnlyAsFastAsTheLoopRunsItsCommands(run: Int) async throws {
        let load = CPULoad()
        defer { load.stop() }
        let server = try Server(arguments: ["--flush-deadline-ms", "2000"])
        var subscribers: [LineClient] = []
        for _ in 0..<50 {
            let subscriber = try server.client()
            try subscriber.send("SUB flood")
            #expect(subscriber.readLine() == "OK SUB flood")
            subscribers.append(subscriber)
        }
        let flood = Flooder(client: try server.client(), topic: "flood")
        defer { flood.stop() }
        // 100,000 commands (1.7 MB): read at once, as the server did, they are far more than the loop runs meanwhile
        // with 50 subscribers to serve.
        let floodedBeforeDebug = 100_000
        let reached = try await offPool { flood.wait(untilSent: floodedBeforeDebug) }
        #expect(reached, "the flooder got stuck after \(flood.sent) commands: \(flood.failure ?? "no error")")

        // A new client is answered, behind at most the bound of what the flooder may have queued.
        let newcomer = try server.client()
        try newcomer.send("DEBUG")
        let snapshot = try await offPool { () -> [String] in
            var lines: [String] = []
            while let line = newcomer.readLine(), line != "DEBUG END" { lines.append(line) }
            return lines
        }
        let postsLine = snapshot.first { $0.hasPrefix("DEBUG   posts: ") } ?? ""
        let pending = Int(postsLine.dropFirst("DEBUG   posts: ".count).prefix { $0.isNumber }) ?? -1
        let bound = Self.floodPendingBound(connections: subscribers.count + 2)
        #expect(
            (0...bound).contains(pending),
            """
            run \(run): the loop held \(pending) posts with one client flooding (\(flood.sent) commands sent), more than \(bound): \
            \(postsLine.isEmpty ? "no DEBUG answer, \(snapshot.count) lines" : postsLine)
            """
        )

        // The flood goes on, read as fast as the loop runs it: the server publishes 20,000 more of its commands while
        // the newcomer's STATS keep being answered (a read that stopped for good would stop `published`).
        let progress = try await offPool { () -> FloodProgress in
            var progress = FloodProgress()
            var lastChange = ContinuousClock.now
            while ContinuousClock.now - lastChange < .seconds(30) {
                try newcomer.send("STATS")
                guard let stats = newcomer.readLine() else { break }
                progress.answers += 1
                let field = stats.split(separator: " ").first { $0.hasPrefix("published=") }
                guard let published = field.flatMap({ Int($0.dropFirst(10)) }) else { break }
                if progress.first == nil { progress.first = published }
                if published != progress.last { lastChange = ContinuousClock.now }
                progress.last = published
                if published >= (progress.first ?? 0) + 20_000 { break }
            }
            return progress
        }
        #expect(
            progress.last - (progress.first ?? 0) >= 20_000,
            "run \(run): the server stopped running the flood: \(progress), \(flood.sent) commands sent"
        )

        // SIGTERM mid-flood: the server stops within its flush deadline (2 s) and closes every connection.
        let start = ContinuousClock.now
        let result = await server.terminate()
        let took = ContinuousClock.now - start
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("pubsub-server: stopped"))
        #expect(took < .seconds(10), "run \(run): SIGTERM took \(took) with a flood going on (flush deadline 2 s)")
    }

    /// What the newcomer's `STATS` said while the flood went on.
    struct FloodProgress: Sendable, CustomStringConvertible {
        var answers = 0
        var first: Int?
        var last = 0

        var description: String {
            "\(answers) STATS answered, published=\(first.map(String.init) ?? "?") at the first, \(last) at the last"
        }
    }
}

/// A client that sends `PUB <topic> <n>` as fast as the server takes them, on a thread of its own, until its
/// connection fails or it is stopped. Thread-safe: the counters are protected by `condition`.
final class Flooder: @unchecked Sendable {
    // @unchecked Sendable: `count`, `error` and `isStopped` are read and written only while `condition` is locked;
    // `client` is used by the flooding thread alone (and closed by `stop()` once that thread has ended).
    private let condition = NSCondition()
    private var count = 0
    private var error: String?
    private var isStopped = false
    private var isDone = false
    private let client: LineClient

    /// Starts flooding `topic` through `client`.
    init(client: LineClient, topic: String) {
        self.client = client
        Thread.detachNewThread { [self] in
            var index = 0
            while !stopped {
                var chunk = ""
                for _ in 0..<1_000 {
                    chunk += "PUB \(topic) \(index)\n"
                    index += 1
                }
                do {
                    try client.send(bytes: Array(chunk.utf8))
                } catch {
                    condition.withLock { self.error = "\(error)" }
                    break
                }
                condition.withLock {
                    count += 1_000
                    condition.broadcast()
                }
            }
            condition.withLock {
                isDone = true
                condition.broadcast()
            }
        }
    }

    private var stopped: Bool { condition.withLock { isStopped } }

    /// Commands sent so far.
    var sent: Int { condition.withLock { count } }
    /// Why sending failed (the server closed the connection), or `nil`.
    var failure: String? { condition.withLock { error } }

    /// Blocks until `target` commands were sent; `false` when 30 s passed without one more chunk sent, or sending
    /// failed.
    func wait(untilSent target: Int) -> Bool {
        condition.withLock {
            while count < target, error == nil, !isDone {
                guard condition.wait(until: Date(timeIntervalSinceNow: 30)) else { return false }
            }
            return count >= target
        }
    }

    /// Stops flooding and waits for the thread to end: a send blocked on a server that no longer reads is cut
    /// short by shutting the socket down.
    func stop() {
        condition.withLock { isStopped = true }
        shutdown(client.fd, Int32(SHUT_RDWR))
        condition.withLock {
            while !isDone { condition.wait() }
        }
    }
}
