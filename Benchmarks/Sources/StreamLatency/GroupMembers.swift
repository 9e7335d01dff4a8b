import Foundation
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Starts two member processes of `peer` whose output `tally` follows, member 0 told to stall after `stallAfter`
/// events (0: never); their standard input is one pipe, whose write end it returns: closing it gives the go.
@MainActor
func startMembers(
    _ peer: GroupPeer,
    target: String,
    stallAfter: Int,
    on cluster: PostgresTestCluster,
    settings: Settings,
    tally: GroupTally
) throws -> (members: [ChildProcess], go: Int32) {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { throw MembersFailed(peer: peer, reason: "pipe: errno \(errno)") }
    // Close-on-exec on both ends: a member must hold neither, or the go (the write end's close) would never arrive.
    // ChildProcess dup2s the read end onto each member's standard input, which clears it there.
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    defer { close(ends[0]) }
    let arguments = [
        "--member", peer.rawValue, "--port", "\(cluster.port)", "--database", cluster.database, "--user", cluster.user,
        "--target", target, "--batch", "\(settings.groupBatch)", "--lease", "\(settings.groupLease)",
    ]
    var members: [ChildProcess] = []
    do {
        for member in 0..<2 {
            let child = try ChildProcess(
                try ChildProcess.builtProduct("stream-latency"),
                arguments + (member == 0 && stallAfter > 0 ? ["--stall-after", "\(stallAfter)"] : []),
                standardOutput: .capture,
                standardError: .inherit,
                standardInput: ends[0]
            )
            tally.follow(child, member: member)
            members.append(child)
        }
    } catch {
        close(ends[1])
        for member in members { member.send(SIGKILL) }
        throw error
    }
    return (members, ends[1])
}
