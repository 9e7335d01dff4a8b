/// Snapshots of the core: what `MainLoop.snapshot()` and `TestLoop.snapshot()` report.
///
/// Must be used on the main actor, like the core.
extension _LoopCore {
    /// What the core holds and has done now.
    ///
    /// - Parameters:
    ///   - loop: Which loop this is (`MainLoop`, `TestLoop`).
    ///   - state: The loop's lifecycle state; only the loop knows it.
    ///   - now: The loop's clock.
    /// - Complexity: O(t log t + s) in the scheduled timers and the queued settle notifications.
    package func snapshot(loop: String, state: LoopSnapshot.State, now: LoopInstant) -> LoopSnapshot {
        var snapshot = LoopSnapshot(
            loop: loop,
            state: state,
            now: now,
            phase: isShutDown ? .stopped : progress.phase,
            pendingPosts: scheduler.pendingPosts(onLoop: true),
            pendingSettleNotifications: settleQueue.pendingCount,
            pendingIdleBodies: idle.pendingCount,
            timers: timers.snapshot(),
            counters: scheduler.counters(settleDeliveries: settleDeliveries)
        )
        snapshot.pendingPostsBySite = isShutDown ? [] : Self.countedBySite(posts.waitingSites(limit: 10_000))
        return snapshot
    }

    /// `sites` counted by site, the most frequent first (ties: the site seen first), at most 10.
    static func countedBySite(_ sites: [LoopSite]) -> [LoopSnapshot.SiteCount] {
        var counts: [LoopSite: (count: Int, first: Int)] = [:]
        for (index, site) in sites.enumerated() {
            counts[site, default: (0, index)].count += 1
        }
        return counts.sorted { ($1.value.count, $0.value.first) < ($0.value.count, $1.value.first) }
            .prefix(10)
            .map { LoopSnapshot.SiteCount(site: $0.key, count: $0.value.count) }
    }

    /// Posted jobs run so far, including those run while shutting down.
    package var postsRun: Int { progress.postsRun }
}
