extension MainLoop {
    /// Runs `body` once, on the main actor, at `deadline` on the loop's clock (``now``). Must be called on the main
    /// actor. See ``SerialLoop/schedule(at:_:)``.
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
    ///   - body: The work to run.
    /// - Returns: The task, for cancelling (from any thread). On a stopped loop it comes back already cancelled.
    /// - Complexity: O(log n) in the number of scheduled timers.
    @MainActor @discardableResult
    public func schedule(at deadline: LoopInstant, _ body: @escaping @MainActor () -> Void) -> ScheduledTask {
        attachIfIdle()
        return core.schedule(at: deadline, body)
    }
}
