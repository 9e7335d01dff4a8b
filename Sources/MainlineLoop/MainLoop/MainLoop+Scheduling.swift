import MainlineLoopCore

// The main loop's timers: the three scheduling calls of `SerialLoop` (`schedule(after:from:)`, `schedule(at:from:)`,
// `scheduleRepeating(every:from:)`). Callers write `schedule(after:) { … }` or `schedule(after:label:) { … }`, the
// forms of `SerialLoop` and `Loop` that pass their site.
extension MainLoop {
    /// Runs `body` once, on the main actor, when `delay` has passed. See `SerialLoop.schedule(after:from:_:)`.
    ///
    /// Must be called on the main actor. Using an idle loop attaches it as a guest (see ``attachAsGuest()``).
    ///
    /// - Parameters:
    ///   - delay: How long from ``now``.
    ///   - site: Where the timer was scheduled.
    ///   - body: The work to run.
    /// - Returns: The task, for cancelling.
    @MainActor @discardableResult
    public func schedule(
        after delay: Duration,
        from site: LoopSite,
        _ body: @escaping @MainActor () -> Void
    ) -> ScheduledTask {
        attachIfIdle()
        return core.schedule(after: delay, now: now, site: site, body)
    }

    /// Runs `body` every `interval` at a fixed rate, on the main actor. See
    /// `SerialLoop.scheduleRepeating(every:from:_:)`.
    ///
    /// Must be called on the main actor. Using an idle loop attaches it as a guest (see ``attachAsGuest()``).
    ///
    /// - Parameters:
    ///   - interval: The period; must be positive.
    ///   - site: Where the timer was scheduled.
    ///   - body: The work to run; it receives the task.
    /// - Returns: The task, for cancelling.
    @MainActor @discardableResult
    public func scheduleRepeating(
        every interval: Duration,
        from site: LoopSite,
        _ body: @escaping @MainActor (ScheduledTask) -> Void
    ) -> ScheduledTask {
        attachIfIdle()
        return core.scheduleRepeating(every: interval, now: now, site: site, body)
    }

    /// Runs `body` once, on the main actor, at `deadline` on the loop's clock (``now``). Must be called on the main
    /// actor. See `SerialLoop.schedule(at:from:_:)`.
    ///
    /// Timers with equal deadlines fire in the order they were scheduled. A deadline in the past fires in the next
    /// timer phase: never synchronously, never in the timer phase that is running. Using an idle loop attaches it as
    /// a guest (see ``attachAsGuest()``).
    ///
    /// ```swift
    /// let frame = loop.now + .milliseconds(16)
    /// loop.schedule(at: frame) { render() }
    /// loop.schedule(at: frame) { present() }   // fires right after render()
    /// ```
    ///
    /// - Parameters:
    ///   - deadline: When to fire.
    ///   - site: Where the timer was scheduled.
    ///   - body: The work to run.
    /// - Returns: The task, for cancelling (from any thread). On a stopped loop it comes back already cancelled.
    /// - Complexity: O(log n) in the number of scheduled timers.
    @MainActor @discardableResult
    public func schedule(
        at deadline: LoopInstant,
        from site: LoopSite,
        _ body: @escaping @MainActor () -> Void
    ) -> ScheduledTask {
        attachIfIdle()
        return core.schedule(at: deadline, site: site, body)
    }
}
