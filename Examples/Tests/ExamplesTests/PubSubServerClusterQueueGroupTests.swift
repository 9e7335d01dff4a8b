import Foundation
import Testing
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `QSUB` across `pubsub-server --postgres` servers sharing one throwaway PostgreSQL database: a group spans the
/// servers, and a server killed with `kill -9` mid-stream loses none of the group's messages. Every wait is a client's
/// bounded read or a wait for lines to arrive; nothing sleeps.
@Suite("Example: pubsub-server queue groups across a cluster", .serialized, .timeLimit(.minutes(3)))
struct PubSubServerClusterQueueGroupTests {
    /// The lease the servers run with: ten minutes, far beyond the suite's time limit, so the survivor can only take
    /// the killed server's messages because its database session ended, not because their lease ran out.
    static let leaseMilliseconds = 600_000

    /// Lines one client reads on a thread of its own, and a way to wait until they satisfy a condition.
    final class Reader: @unchecked Sendable {
        // @unchecked Sendable: `heard` and `ended` are read and written only while `condition` is locked.
        private let condition = NSCondition()
        private var heard: [String] = []
        private var ended = false

        /// Starts reading `client` until it reads `BYE` or the server closes the connection (a read that times out
        /// is tried again: ``wait(upTo:until:)`` decides how long is too long). Send `QUIT` to end it.
        init(_ client: LineClient) {
            Thread.detachNewThread { [self] in
                client.readLinesUntilEnd { line in
                    condition.withLock {
                        heard.append(line)
                        condition.broadcast()
                    }
                }
                condition.withLock {
                    ended = true
                    condition.broadcast()
                }
            }
        }

        /// Waits (off the concurrency pool) until what was read satisfies `isEnough`, the reading ended, or `timeout`
        /// passed; returns what was read.
        func wait(
            upTo timeout: TimeInterval = 60,
            until isEnough: @escaping @Sendable ([String]) -> Bool
        ) async throws -> [String] {
            try await offPool { [self] in
                let deadline = Date(timeIntervalSinceNow: timeout)
                return condition.withLock {
                    while !isEnough(heard), !ended, condition.wait(until: deadline) {}
                    return heard
                }
            }
        }
    }

    @Test @MainActor func aQueueGroupLosesNoMessageWhenOneOfItsServersIsKilledMidStream() async throws {
        try await PostgresTestCluster.with { cluster in
            let arguments = ["--postgres", cluster.url, "--group-lease-ms", "\(Self.leaseMilliseconds)"]
            let victim = try ServerProcess("pubsub-server", arguments: arguments)
            let survivor: ServerProcess
            do {
                survivor = try ServerProcess("pubsub-server", arguments: arguments)
            } catch {
                victim.process.send(SIGKILL)
                _ = await victim.process.finish()
                throw error
            }
            do {
                try await killOneServerMidStream(cluster: cluster, victim: victim, survivor: survivor)
            } catch {
                victim.process.send(SIGKILL)
                _ = (await victim.process.finish(), await survivor.terminate())
                throw error
            }
            let end = await survivor.terminate()
            #expect(end.status == 0, "\(end.standardError)")
        }
    }

    /// The number of a job's `MSG` line (`MSG jobs job 12 xxx…` → 12); -1 for any other line.
    static func job(_ line: String) -> Int {
        let words = line.split(separator: " ", maxSplits: 4)
        return words.count > 3 && words[0] == "MSG" ? Int(words[3]) ?? -1 : -1
    }

    /// What the victim's member holds unacknowledged: its rows in the claims table.
    @MainActor
    private func claims(of victim: ServerProcess, in cluster: PostgresTestCluster) async throws -> Int {
        let count = try await cluster.psql(
            "SELECT count(*) FROM mainline_stream_claims WHERE member LIKE '%-\(victim.process.pid)-%'"
        )
        return Int(count.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The scenario: the victim's client joins the group first and reads nothing (a 4 KiB receive buffer), so the
    /// victim's member holds a window of messages, most of which it could not write yet. Then a client on the
    /// survivor joins, the victim is killed, and publishing goes on through the survivor, where a plain subscriber
    /// watches too.
    @MainActor
    private func killOneServerMidStream(
        cluster: PostgresTestCluster,
        victim: ServerProcess,
        survivor: ServerProcess
    ) async throws {
        let onVictim = try LineClient(port: victim.port, receiveBufferSize: 4_096)
        try onVictim.send("QSUB workers jobs")
        #expect(onVictim.readLine() == "OK QSUB workers jobs")
        let watcher = try LineClient(port: survivor.port)
        try watcher.send("SUB jobs")
        #expect(watcher.readLine() == "OK SUB jobs")
        let publisher = try LineClient(port: survivor.port)

        // About 1 KB each: the victim's client's socket buffers take a few dozen, the rest waits in the server.
        let padding = String(repeating: "x", count: 1_000)
        let (before, after) = (300, 300)
        let all = (0..<before + after).map { "MSG jobs job \($0) \(padding)" }
        let watched = Reader(watcher)
        try await offPool { for line in all[..<before] { try publisher.send("PUB " + line.dropFirst(4)) } }
        // Mid-stream: the victim's member holds about half a window (100) of messages or more, unacknowledged (it
        // claims again only once half of its window is free).
        var held = try await claims(of: victim, in: cluster)
        for _ in 0..<300 where held < 40 { held = try await claims(of: victim, in: cluster) }
        #expect(held >= 40, "the victim's member held only \(held)")

        let onSurvivor = try LineClient(port: survivor.port)
        try onSurvivor.send("QSUB workers jobs")
        #expect(onSurvivor.readLine() == "OK QSUB workers jobs")
        let survivorHeard = Reader(onSurvivor)
        // What it holds when it dies: the claims it has not acknowledged (its client reads nothing, so it acknowledges
        // and claims nothing more; read before the kill, since the survivor takes them as soon as its session ends).
        held = try await claims(of: victim, in: cluster)
        victim.process.send(SIGKILL)
        #expect(await victim.process.finish().status == 128 + SIGKILL)
        // Its client reads what reached it before the kill: whatever the kernel took for it.
        let heardOnVictim = try await offPool {
            var lines: [String] = []
            while let line = onVictim.readLine() { lines.append(line) }
            return lines
        }
        try await offPool { for line in all[before...] { try publisher.send("PUB " + line.dropFirst(4)) } }

        // The group gets everything: what the victim's client did not get reaches the survivor's, the messages the
        // victim held once its session ended. (Compared by number: a failure names jobs, not 1 KB lines.)
        let victimJobs = heardOnVictim.map(Self.job)
        let missing = Set(all.indices).subtracting(victimJobs)
        let survivorJobs = try await survivorHeard.wait { missing.isSubset(of: $0.map(Self.job)) }.map(Self.job)
        #expect(
            missing.subtracting(survivorJobs).isEmpty,
            "never reached the group: \(missing.subtracting(survivorJobs))"
        )
        #expect(Set(victimJobs + survivorJobs) == Set(all.indices))
        #expect(!victimJobs.isEmpty && victimJobs.count < held, "the victim's client got \(victimJobs.count)")

        // Twice only what the victim's client got and the victim had not acknowledged: at most what it held.
        #expect(Set(victimJobs).count == victimJobs.count, "the victim's client got a message twice: \(victimJobs)")
        #expect(Set(survivorJobs).count == survivorJobs.count, "the survivor's client got a message twice")
        let twice = Set(victimJobs).intersection(survivorJobs)
        #expect(twice.count <= held, "\(twice.count) duplicates, the victim held \(held) unacknowledged")
        #expect(held <= 100, "a member holds at most its window (100) unacknowledged")

        // The plain subscriber gets every message in order, but for what its mailbox replaced while it was slow to read
        // (the usual latest-per-topic rule), which its STATS counts.
        let watchedJobs = try await watched.wait { $0.last == all.last }.map(Self.job)
        #expect(watchedJobs.last == all.count - 1)
        #expect(watchedJobs == watchedJobs.sorted() && Set(watchedJobs).count == watchedJobs.count)
        try watcher.send("STATS")
        let stats = try await watched.wait { $0.last?.hasPrefix("STATS ") == true }.last ?? ""
        #expect(stats.hasSuffix(" you.dropped=\(all.count - watchedJobs.count)"), "\(stats.prefix(200))")
        for (client, reader) in [(onSurvivor, survivorHeard), (watcher, watched)] {
            try client.send("QUIT")
            _ = try await reader.wait { _ in false }
        }
    }
}
