import CMainlineShims

/// The idle phase (DESIGN.md §2, phase 5): bodies registered with `whenIdle` run once an iteration has nothing else
/// pending, right before the loop would block.
///
/// Registration is thread-safe; the phase runs on the main actor, like the core.
extension _LoopCore {
    /// Registers `body` for the idle phase. Thread-safe.
    ///
    /// Returns the registration, spent already when the core has shut down, and whether the caller must wake the
    /// loop (the registration came from outside the loop's phases and no wake-up is owed yet). A registration from a
    /// phase of this loop — a post, a timer, settle, an idle body — never wakes it: the iteration it runs in reaches
    /// its idle phase anyway, and one made by an idle body waits for a later iteration.
    package nonisolated func whenIdle(
        _ body: @escaping @MainActor @Sendable () -> Void,
        site: LoopSite
    ) -> (IdleRegistration, mustWake: Bool) {
        let fromLoop = owner != nil && mainline_running_loop() == owner
        return idle.add(.mainActor(serviceContext.carry(post: body)), site: site, wakes: !fromLoop)
    }

    /// Whether a registration from outside the loop waits for an idle phase (`TestLoop` counts it as work due now).
    package nonisolated var isIdleWakeRequested: Bool { idle.isWakeRequested }

    /// Phase 5: when idle bodies are registered and nothing else is pending — no posts waiting, nothing pending for
    /// settle, no timer due at `now`, the loop not stopping — runs every body registered before the phase began, in
    /// registration order. Returns how many ran.
    ///
    /// Costs one atomic load when no body is registered. Bodies registered while the phase runs wait for the next
    /// idle phase; what the bodies post, schedule or settle runs in the next iteration.
    @discardableResult
    package func runIdleIfNothingPending(now: @autoclosure () -> LoopInstant) -> Int {
        // Settle pending, or shut down, is other work: the rest of the rule is the scheduler's, as on an `EventLoop`.
        guard
            scheduler.idlePhaseIsDue(
                otherWork: settleQueue.hasPending || settleInbox.hasRequests || isShutDown,
                nextDeadline: nextDeadline,
                now: now()
            )
        else { return 0 }
        return _RunningLoop.with(owner) {
            scheduler.runIdle { _, body in
                guard case .mainActor(let body) = body else { return }
                body()
            }
        }
    }
}
