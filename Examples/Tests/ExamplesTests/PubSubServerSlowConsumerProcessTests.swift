import Foundation
import Testing
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A queue group whose client stops reading, with the real server: one client of the group has a 4 KiB receive buffer
/// and reads nothing while messages are published, the other reads. The reading client must get every message but
/// the few the stopped one's kernel buffers took, during the stall; when the stopped client reads again, every message
/// reached the group and the reading client got none twice. On a server of its own and in cluster mode (`--postgres`),
/// several rounds under CPU load. Counts only: every wait is for lines to arrive, bounded by a generous failure
/// timeout.
@Suite("Example: pubsub-server queue groups with a client that stops reading", .serialized, .timeLimit(.minutes(6)))
struct PubSubServerSlowConsumerProcessTests {
    /// The slow consumer bound the servers run with: short, so that the rounds are quick.
    static let slowConsumerMilliseconds = 300
    /// Messages published while the stopped client reads nothing, about 0.9 KB each.
    static let stalled = 400
    /// At most this many of them may reach the stopped client's kernel buffers (its 4 KiB receive buffer and the
    /// server's send buffer) and so not the reading client; the rest of what the stopped client was handed (64 KiB,
    /// about 70 lines, not yet written) must go to the reading one. Measured: up to 68 with `--postgres`, up to 20 on a
    /// server of its own; without the slow consumer bound, 147 to 200.
    static let keptByTheKernel = 100
    static let rounds = 3

    @Test func onAServerOfItsOwnAClientThatStopsReadingDoesNotStopItsGroup() async throws {
        let server = try ServerProcess(
            "pubsub-server",
            arguments: ["--slow-consumer-ms", "\(Self.slowConsumerMilliseconds)"]
        )
        try await stallRounds(on: server)
    }

    @Test @MainActor func inClusterModeAClientThatStopsReadingDoesNotStopItsGroup() async throws {
        try await PostgresTestCluster.with { cluster in
            let server = try ServerProcess(
                "pubsub-server",
                arguments: ["--postgres", cluster.url, "--slow-consumer-ms", "\(Self.slowConsumerMilliseconds)"]
            )
            try await stallRounds(on: server)
        }
    }

    /// Runs the ``rounds`` on `server`, then stops it (also when a round throws), expecting a clean exit.
    private func stallRounds(on server: ServerProcess) async throws {
        do {
            for round in 1...Self.rounds { try await stall(round: round, port: server.port) }
        } catch {
            _ = await server.terminate()
            throw error
        }
        let end = await server.terminate()
        #expect(end.status == 0, "\(end.standardError)")
    }

    /// One round, under CPU load: a stopped and a reading client join the group `workers<round>` of `jobs<round>`,
    /// ``stalled`` messages are published, the reading client gets all but at most ``keptByTheKernel`` of them while
    /// the stopped one reads nothing; then the stopped one reads, and 40 more are published, which both get some of.
    private func stall(round: Int, port: Int) async throws {
        let (group, topic) = ("workers\(round)", "jobs\(round)")
        let stopped = try LineClient(port: port, receiveBufferSize: 4_096)
        let reading = try LineClient(port: port)
        for client in [stopped, reading] {
            try client.send("QSUB \(group) \(topic)")
            #expect(client.readLine() == "OK QSUB \(group) \(topic)")
        }
        let publisher = try LineClient(port: port)
        let padding = String(repeating: "x", count: 880)
        let load = CPULoad()
        defer { load.stop() }

        let heard = Jobs()
        heard.read(reading, as: .reading)
        try await offPool {
            for job in 0..<Self.stalled { try publisher.send("PUB \(topic) job \(job) \(padding)") }
        }
        // The stall: the stopped client reads nothing; the reading one gets every message its kernel did not take.
        let enough = Self.stalled - Self.keptByTheKernel
        let readDuringStall =
            try await heard.wait(upTo: 60) { Set($0[.reading, default: []]).count >= enough }[.reading] ?? []
        #expect(
            Set(readDuringStall).count >= enough,
            "round \(round): the reading client got \(Set(readDuringStall).count) of \(Self.stalled) during the stall"
        )

        // The stopped client reads again: between them the two got every message, the reading one none twice.
        heard.read(stopped, as: .stopped)
        let all = Set(0..<Self.stalled)
        let afterStall = try await heard.wait { all.isSubset(of: Set($0.values.joined())) }
        let (readByReading, readByStopped) = (afterStall[.reading] ?? [], afterStall[.stopped] ?? [])
        #expect(
            all.subtracting(readByReading).subtracting(readByStopped).isEmpty,
            "round \(round): never reached the group: \(all.subtracting(readByReading).subtracting(readByStopped))"
        )
        #expect(readByReading.count == Set(readByReading).count, "round \(round): the reading client got one twice")
        #expect(
            all.subtracting(readByReading).count <= Self.keptByTheKernel,
            "round \(round): only the stopped client got \(all.subtracting(readByReading).count)"
        )

        // Reading again, it gets its turn again once it has taken what it held: the answer to a STATS it sends now
        // comes after all of that (and is sent once the server reads its commands again, when it is resumed).
        try stopped.send("STATS")
        try await heard.waitForStats(of: .stopped)
        let more = Set(Self.stalled..<Self.stalled + 40)
        try await offPool { for job in more.sorted() { try publisher.send("PUB \(topic) job \(job) \(padding)") } }
        let afterMore = try await heard.wait { more.isSubset(of: Set($0.values.joined())) }
        let (finallyReading, finallyStopped) = (afterMore[.reading] ?? [], afterMore[.stopped] ?? [])
        #expect(
            !Set(finallyStopped).isDisjoint(with: more),
            "round \(round): the stopped client got none of the messages published once it read again"
        )
        // By now the stopped client drained what it held (it keeps up again): still nothing twice to the reading one.
        #expect(finallyReading.count == Set(finallyReading).count, "round \(round): the reading client got one twice")
        #expect(finallyStopped.count == Set(finallyStopped).count, "round \(round): the stopped client got one twice")
        let stoppedDuringStall = Set(finallyStopped).intersection(all)
        print(
            "round \(round): during the stall the reading client got \(Set(readDuringStall).count) of \(Self.stalled);",
            "the stopped client got \(stoppedDuringStall.count) of them when it read again",
            "(\(stoppedDuringStall.intersection(finallyReading).count) of which the reading client got too)"
        )
        for client in [stopped, reading] { try client.send("QUIT") }
        try await heard.waitForEnd(of: 2)
    }

    /// The two clients of a round.
    enum Role: Hashable {
        case reading, stopped
    }

    /// The job numbers each client read, each client read on a thread of its own until `BYE` or the end of its
    /// connection, and a way to wait until they satisfy a condition (one condition for both clients, so that a wait
    /// on what both got wakes whichever gets a line).
    final class Jobs: @unchecked Sendable {
        // @unchecked Sendable: `jobs` and `ended` are read and written only while `condition` is locked.
        private let condition = NSCondition()
        private var jobs: [Role: [Int]] = [:]
        private var ended = 0
        /// The clients that read the answer to a `STATS`.
        private var answered: Set<Role> = []

        /// Starts reading `client`'s lines as `role`'s (a receive timeout is tried again).
        func read(_ client: LineClient, as role: Role) {
            Thread.detachNewThread { [self] in
                client.readLinesUntilEnd { line in
                    if line.hasPrefix("STATS ") {
                        condition.withLock {
                            answered.insert(role)
                            condition.broadcast()
                        }
                    }
                    let job = PubSubServerSlowConsumerProcessTests.job(line)
                    guard job >= 0 else { return }
                    condition.withLock {
                        jobs[role, default: []].append(job)
                        condition.broadcast()
                    }
                }
                condition.withLock {
                    ended += 1
                    condition.broadcast()
                }
            }
        }

        /// Waits (off the concurrency pool) until `role`'s client read the answer to a `STATS`, or `timeout` passed.
        func waitForStats(of role: Role, upTo timeout: TimeInterval = 120) async throws {
            try await offPool { [self] in
                let deadline = Date(timeIntervalSinceNow: timeout)
                condition.withLock {
                    while !answered.contains(role), condition.wait(until: deadline) {}
                }
            }
        }

        /// Waits (off the concurrency pool) until `readers` readers have ended, or `timeout` passed.
        func waitForEnd(of readers: Int, upTo timeout: TimeInterval = 120) async throws {
            try await offPool { [self] in
                let deadline = Date(timeIntervalSinceNow: timeout)
                condition.withLock {
                    while ended < readers, condition.wait(until: deadline) {}
                }
            }
        }

        /// Waits (off the concurrency pool) until what was read satisfies `isEnough`, or `timeout` passed (a failure
        /// bound: the caller's expectations then fail, naming what was read); returns what was read.
        func wait(
            upTo timeout: TimeInterval = 120,
            until isEnough: @escaping @Sendable ([Role: [Int]]) -> Bool
        ) async throws -> [Role: [Int]] {
            try await offPool { [self] in
                let deadline = Date(timeIntervalSinceNow: timeout)
                return condition.withLock {
                    while !isEnough(jobs), condition.wait(until: deadline) {}
                    return jobs
                }
            }
        }
    }

    /// The number of a job's `MSG` line; -1 for any other line.
    static func job(_ line: String) -> Int { PubSubServerClusterQueueGroupTests.job(line) }
}
