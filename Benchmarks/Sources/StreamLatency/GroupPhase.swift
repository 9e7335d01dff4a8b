import Foundation
import Logging
import PostgresNIO
import StreamWire
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A group phase whose members did not say `ready` within 30 s, or ended before the backlog drained.
struct MembersFailed: Error, CustomStringConvertible {
    /// The peer.
    var peer: GroupPeer
    /// What went wrong.
    var reason: String

    var description: String { "\(peer.rawValue) members: \(reason)" }
}

/// Runs one group phase: writes `events` events as a backlog, starts two member processes (this program again, with
/// `--member`), gives both the go at once, and waits until the backlog is drained in the database. With `killsOne`,
/// member 0 stops mid-work once it handled a sixth of the events (about a third of them handled by the two), before
/// acknowledging or committing that batch (`--stall-after`), and is `kill -9`ed as soon as it says so: a kill at a
/// random moment mostly lands while a member waits for the database, where it holds no handled work (see
/// Benchmarks/README.md). Then ends the members and returns what they handled.
///
/// - Parameters:
///   - peer: Mainline's consumer group, or the skip-locked queue.
///   - killsOne: Whether to kill member 0 part-way.
///   - run: Which run of this phase it is (each has a stream or table of its own).
///   - cluster: The database.
///   - settings: Events, batch, lease, drain timeout.
/// - Returns: The phase's figures.
/// - Throws: ``MembersFailed``, or what writing the backlog or starting a process throws.
@MainActor
func runGroupPhase(
    _ peer: GroupPeer,
    killsOne: Bool,
    run: Int = 0,
    on cluster: PostgresTestCluster,
    settings: Settings
) async throws -> GroupResult {
    let configuration = PostgresConnection.Configuration(
        host: cluster.host,
        port: cluster.port,
        username: cluster.user,
        password: nil,
        database: cluster.database,
        tls: .disable
    )
    let target = "bench_\(peer == .mainline ? "group" : "jobs")_\(killsOne ? "kill" : "clean")_\(run)"
    let backlog = GroupBacklog(peer: peer, target: target, events: settings.groupEvents)
    let client = PostgresClient(
        configuration: PostgresClient.Configuration(
            host: cluster.host,
            port: cluster.port,
            username: cluster.user,
            password: nil,
            database: cluster.database,
            tls: .disable
        )
    )
    let connection = try await PostgresConnection.connect(
        configuration: configuration,
        id: 1,
        logger: Logger(label: "stream-latency.group")
    )
    do {
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            try await backlog.write(through: client, on: connection)
            group.cancelAll()
        }
        let result = try await measure(
            backlog,
            killsOne: killsOne,
            on: cluster,
            connection: connection,
            settings: settings
        )
        try? await connection.close()
        return result
    } catch {
        try? await connection.close()  // before it is freed: an unclosed connection traps in its deinit
        throw error
    }
}

/// The measured part of a group phase, once the backlog is written: see ``runGroupPhase(_:killsOne:run:on:settings:)``.
@MainActor
private func measure(
    _ backlog: GroupBacklog,
    killsOne: Bool,
    on cluster: PostgresTestCluster,
    connection: PostgresConnection,
    settings: Settings
) async throws -> GroupResult {
    let peer = backlog.peer
    let loadBefore = loadAverage()
    let tally = GroupTally(members: 2, events: backlog.events)
    try await DatabaseActivity.waitForOtherBackends(on: connection)  // the publisher's pool, closing
    let activityBefore = try await DatabaseActivity.read(on: connection)
    // Counted from the reading's second statement on: see DatabaseActivity.read(on:).
    var ownTransactions = 1
    let (members, go) = try startMembers(
        peer,
        target: backlog.target,
        stallAfter: killsOne ? max(backlog.events / 6, 1) : 0,
        on: cluster,
        settings: settings,
        tally: tally
    )
    var hasGone = false
    defer {
        if !hasGone { close(go) }
        // Only those not reaped yet: a reaped member's pid may be another process's now.
        for (index, member) in members.enumerated() where !tally.hasEnded(index) { member.send(SIGKILL) }
    }
    try await wait(for: tally.allReady, peer: peer, reason: "not ready after 30 s", timeout: .seconds(30))
    let backends = try await DatabaseActivity.otherBackends(on: connection)
    ownTransactions += 1
    let cpuAtGo = cpuSample(members.map(\.pid), backends)
    close(go)
    hasGone = true
    var cpuAtDrain: (members: [pid_t: Double], backends: [pid_t: Double]) = ([:], [:])
    var killedAt: Int64?
    var drainedAt: Int64?
    var allHandled: ContinuousClock.Instant?
    var nextDrainCheck = ContinuousClock.now
    let deadline = ContinuousClock.now + settings.drainTimeout + .seconds(settings.groupLease * 2)
    while ContinuousClock.now < deadline {
        if killsOne, killedAt == nil, tally.hasStalled(0) {
            members[0].send(SIGKILL)
            killedAt = monotonicNanoseconds()
        }
        // The database is asked only once every event was handled, so polling does not compete with the members: every
        // 2 ms for 100 ms (the last acknowledgements follow the last handling by a round trip or two), then every 250 ms
        // (a killed member's events wait for their lease), so that the polls hardly count in the database's activity.
        if tally.handledDistinct == backlog.events {
            let now = ContinuousClock.now
            let since = allHandled ?? now
            allHandled = since
            if now >= nextDrainCheck {
                ownTransactions += 1
                if try await backlog.isDrained(on: connection) {
                    drainedAt = monotonicNanoseconds()
                    cpuAtDrain = cpuSample(members.map(\.pid), backends)
                    break
                }
                nextDrainCheck = now + (now - since < .milliseconds(100) ? .milliseconds(2) : .milliseconds(250))
            }
        }
        // A member that ended on its own failed (its error is on standard error): no use waiting.
        if (0..<2).contains(where: { tally.hasEnded($0) && !($0 == 0 && killedAt != nil) }) { break }
        try await Task.sleep(for: .milliseconds(2))
    }
    let loadAfter = loadAverage()
    // Everything a member handled is printed, and (once drained) acknowledged or committed: no more is wanted of it.
    for (index, member) in members.enumerated() where !tally.hasEnded(index) { member.send(SIGKILL) }
    try await wait(for: tally.allEnded, peer: peer, reason: "still running 30 s after SIGKILL", timeout: .seconds(30))
    ownTransactions += try await DatabaseActivity.waitForOtherBackends(on: connection) + 1  // + the reading's first
    let activity = try await DatabaseActivity.read(on: connection).since(
        activityBefore,
        ownTransactions: ownTransactions
    )
    let cpu = (
        members: cpuSpent(from: cpuAtGo.members, to: cpuAtDrain.members),
        backends: cpuSpent(from: cpuAtGo.backends, to: cpuAtDrain.backends)
    )
    let (batches, other, _) = tally.snapshot()
    return GroupResult(
        peer: peer,
        killsOne: killsOne,
        events: backlog.events,
        batches: batches,
        otherLines: Array(other.joined()),
        killedAt: killedAt,
        drainedAt: drainedAt,
        activity: activity,
        memberCPU: killsOne || drainedAt == nil ? nil : cpu.members,
        backendCPU: killsOne || drainedAt == nil ? nil : cpu.backends,
        load: (loadBefore, loadAfter)
    )
}

/// Waits until `condition` holds, checking every 5 ms.
///
/// - Throws: ``MembersFailed`` with `reason` after `timeout`.
@MainActor
private func wait(
    for condition: @autoclosure () -> Bool,
    peer: GroupPeer,
    reason: String,
    timeout: Duration
) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { throw MembersFailed(peer: peer, reason: reason) }
        try await Task.sleep(for: .milliseconds(5))
    }
}
