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
        LoopSnapshot(
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
    }

    /// Posted jobs run so far, including those run while shutting down.
    package var postsRun: Int { progress.postsRun }
}
