// Work with a name: what the stall watchdog and snapshots call a post or a timer.
extension MainLoop {
    /// Runs `body` on the loop, on the main actor, soon; the stall watchdog reports it as `label`.
    /// See ``Loop/post(label:_:)``.
    ///
    /// Thread-safe. Costs one allocation more than ``post(_:)``.
    ///
    /// - Parameters:
    ///   - label: What the work is called in stall reports.
    ///   - body: The work to run.
    /// - Returns: `true` if `body` will run; `false` once ``stop()`` has been called, or when the loop is full
    ///   (``LoopBudgets/maxPendingPosts``).
    @discardableResult
    public func post(label: StaticString, _ body: @escaping @MainActor @Sendable () -> Void) -> Bool {
        accept(core.post(label: label, body)) == .accepted
    }

    /// Runs `body` once when `delay` has passed; the stall watchdog reports it as `label`. Must be called on the
    /// main actor. See ``SerialLoop/schedule(after:_:)``.
    ///
    /// - Parameters:
    ///   - delay: How long from ``now``.
    ///   - label: What the timer is called in stall reports.
    ///   - body: The work to run.
    /// - Returns: The task, for cancelling.
    @MainActor @discardableResult
    public func schedule(
        after delay: Duration,
        label: StaticString,
        _ body: @escaping @MainActor () -> Void
    ) -> ScheduledTask {
        attachIfIdle()
        return core.schedule(after: delay, now: now, label: label, body)
    }

    /// Runs `body` every `interval` at a fixed rate; the stall watchdog reports it as `label`. Must be called on
    /// the main actor. See ``SerialLoop/scheduleRepeating(every:_:)``.
    ///
    /// - Parameters:
    ///   - interval: The period; must be positive.
    ///   - label: What the timer is called in stall reports.
    ///   - body: The work to run; it receives the task.
    /// - Returns: The task, for cancelling.
    @MainActor @discardableResult
    public func scheduleRepeating(
        every interval: Duration,
        label: StaticString,
        _ body: @escaping @MainActor (ScheduledTask) -> Void
    ) -> ScheduledTask {
        attachIfIdle()
        return core.scheduleRepeating(every: interval, now: now, label: label, body)
    }
}
