import _MainlineTestSupport

/// The group mode (`--mode group`): each peer's phase without a `kill -9`, then `--group-kills` phases of each with one,
/// one table, and whether every phase's books balance (printing those that do not).
///
/// - Parameters:
///   - cluster: The database.
///   - settings: Events, batch, lease, drain timeout.
/// - Returns: Whether nothing was lost, malformed or left undrained in any phase, and nothing handled twice without a
///   kill.
/// - Throws: ``MembersFailed``, or what writing a backlog or starting a process throws.
@MainActor
func runGroupMode(on cluster: PostgresTestCluster, settings: Settings) async throws -> Bool {
    var results: [GroupResult] = []
    for peer in GroupPeer.allCases {
        results.append(try await runGroupPhase(peer, killsOne: false, on: cluster, settings: settings))
    }
    for run in 0..<settings.groupKills {
        for peer in GroupPeer.allCases {
            results.append(try await runGroupPhase(peer, killsOne: true, run: run, on: cluster, settings: settings))
        }
    }
    print("\n" + Table.group(results, settings: settings) + "\n")
    let broken = results.filter { !$0.isIntact }
    for result in broken {
        print(
            "BOOKS DO NOT BALANCE: \(result.peer.rawValue)\(result.killsOne ? " (kill -9)" : ""): lost \(result.lost), "
                + "handled twice \(result.handledTwice), malformed \(result.malformed), "
                + "drained \(result.drainedAt != nil), other lines \(result.otherLines.prefix(5))"
        )
    }
    return broken.isEmpty
}

/// A member process of the group mode (`--member`): runs until the measuring process kills it, or fails.
///
/// - Parameter settings: What the measuring process passed.
/// - Throws: What the member's subscriber or statements throw.
@MainActor
func runMember(_ settings: MemberSettings) async throws {
    switch settings.peer {
    case .mainline: try await MainlineGroupMember(settings: settings).run()
    case .skipLocked: try await SkipLockedWorker(settings: settings).run()
    }
}
