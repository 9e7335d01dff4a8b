import MainlineLoopCore

extension TestLoop {
    /// What the loop holds and has done now, in virtual time: pending posts, timers, settle notifications, the
    /// iteration and phase it is in, its counters, its state and ``now``. Must be called on the main actor.
    ///
    /// The same snapshot `MainLoop.snapshot()` takes, from the same scheduling core: a test states exact values.
    /// `LoopSnapshot.state` is `running` until ``stop()``, `stopping` until a step has shut the loop down, then
    /// `stopped`.
    ///
    /// ```swift
    /// let loop = TestLoop()
    /// loop.scheduleRepeating(every: .seconds(1), label: "heartbeat") { _ in }
    /// loop.advance(by: .milliseconds(1_750))
    /// #expect(loop.snapshot().timers.map(\.label) == ["heartbeat"])
    /// #expect(loop.snapshot().description.contains("in 0.250 s  heartbeat"))
    /// ```
    ///
    /// - Returns: The snapshot.
    /// - Complexity: O(t log t + s) in the scheduled timers and the pending settle notifications.
    public func snapshot() -> LoopSnapshot {
        let state: LoopSnapshot.State = isStopped ? .stopped : (core.posts.closed ? .stopping : .running)
        return core.snapshot(loop: "TestLoop", state: state, now: now)
    }
}

extension TestLoop {
    /// The loop's flight recorder, on the loop's virtual clock: a callback that ``simulateBusy(for:)`` says took
    /// 5 ms is recorded as 5 ms of slow work. Thread-safe.
    public nonisolated var flightRecorder: LoopFlightRecorder { core.scheduler.recorder }
}
