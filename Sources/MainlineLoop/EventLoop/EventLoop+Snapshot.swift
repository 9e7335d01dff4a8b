import MainlineLoopCore

extension EventLoop {
    /// What the loop holds and has done now: pending posts, timers, the iteration and phase its thread is in, its
    /// counters, its state and ``now``.
    ///
    /// Thread-safe, and never waits for the loop thread: the snapshot is read under the timers' lock, from the job
    /// queue's atomics and from counters the loop thread publishes once per phase. So it answers even while a callback
    /// blocks the loop — the case a debugging endpoint is for — and its `LoopSnapshot.phase` is
    /// what the loop thread is doing at that moment (`posts` when taken from the loop's own callback).
    ///
    /// ```swift
    /// let loop = EventLoop(name: "io")
    /// logger.info("\(loop.snapshot())")   // from any thread
    /// ```
    ///
    /// An `EventLoop` has no settle phase and no timer labels: `LoopSnapshot.pendingSettleNotifications` and
    /// `LoopSnapshot.Counters.settleDeliveries` are zero, and every `LoopSnapshot.Timer.label` is `nil`.
    /// `LoopSnapshot.pendingPosts` counts posted closures and executor jobs; the jobs of the batch a post phase is
    /// running count as pending until that phase ends (the loop publishes its progress per phase, not per job). An
    /// iteration ends after the loop's wait for I/O (where the main loop's settle phase ends one).
    ///
    /// - Returns: The snapshot: `running`, `stopping` after ``stop()``, `stopped` once the thread has closed the loop.
    /// - Complexity: O(t log t) in the scheduled timers.
    public func snapshot() -> LoopSnapshot {
        driver.snapshot(loop: description)
    }
}

extension EventLoop._Driver {
    /// The loop's snapshot (see `EventLoop.snapshot()`), from its driver: what an inspector holds. Thread-safe.
    func snapshot(loop description: String) -> LoopSnapshot {
        let now = _MonotonicClock.now()
        let isStopped = lifecycle.withLock { $0.closeResult != nil }
        let state: LoopSnapshot.State = isStopped ? .stopped : (scheduler.posts.closed ? .stopping : .running)
        return LoopSnapshot(
            loop: description,
            state: state,
            now: now,
            phase: isStopped ? .stopped : scheduler.progress.phase,
            pendingPosts: isStopped ? 0 : scheduler.pendingPosts(onLoop: false),
            pendingIdleBodies: idle.pendingCount,
            timers: timers.snapshot(),
            counters: scheduler.counters()
        )
    }
}

extension EventLoop {
    /// The loop's flight recorder: what it did in the last seconds — iterations, slow work with its site — and its
    /// loop delay. Always on. Thread-safe: read it from any thread, even while the loop is stalled.
    public var flightRecorder: LoopFlightRecorder { driver.scheduler.recorder }
}
