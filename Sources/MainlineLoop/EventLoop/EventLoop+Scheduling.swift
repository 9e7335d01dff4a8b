import MainlineLoopCore

extension EventLoop {
    /// Runs `body` once on the loop's thread when `delay` has passed.
    ///
    /// Callable from any thread. Timers fire in deadline order, and timers with equal deadlines in the order they
    /// were scheduled. Even a zero delay never runs `body` synchronously or in the timer phase that is running: it
    /// runs in a later iteration at the earliest.
    ///
    /// ```swift
    /// let timeout = loop.schedule(after: .seconds(5)) { connection.assumeIsolated { $0.timedOut() } }
    /// // … the answer arrived in time, on any thread:
    /// timeout.cancel()
    /// ```
    ///
    /// - Parameters:
    ///   - delay: How long from ``now``; a negative delay counts as zero.
    ///   - site: Where the timer was scheduled (`schedule(after:) { … }` passes the caller's).
    ///   - body: The work to run.
    /// - Returns: The task, for cancelling. On a stopped loop it comes back already cancelled and `body` is
    ///   released without running.
    /// - Complexity: O(log n) in the number of scheduled timers.
    @discardableResult
    public func schedule(
        after delay: Duration,
        from site: LoopSite,
        _ body: @escaping @Sendable () -> Void
    ) -> Scheduled {
        schedule(at: now + max(delay, .zero), from: site, body)
    }

    /// Runs `body` once on the loop's thread at `deadline` on the loop's clock (``now``).
    ///
    /// Callable from any thread. Timers with equal deadlines fire in the order they were scheduled, so several
    /// callbacks scheduled for one computed deadline keep their order. A deadline in the past fires in the next
    /// iteration.
    ///
    /// ```swift
    /// let frame = loop.now + .milliseconds(16)
    /// loop.schedule(at: frame) { render() }
    /// loop.schedule(at: frame) { present() }   // fires right after render()
    /// ```
    ///
    /// - Parameters:
    ///   - deadline: When to fire.
    ///   - site: Where the timer was scheduled (`schedule(at:) { … }` passes the caller's).
    ///   - body: The work to run.
    /// - Returns: The task, for cancelling. On a stopped loop it comes back already cancelled and `body` is
    ///   released without running.
    /// - Complexity: O(log n) in the number of scheduled timers.
    @discardableResult
    public func schedule(
        at deadline: LoopInstant,
        from site: LoopSite,
        _ body: @escaping @Sendable () -> Void
    ) -> Scheduled {
        driver.timers.schedule(
            deadline: deadline.nanoseconds,
            interval: nil,
            site: site,
            body: .once(serviceContext.carry(job: body))
        )
    }

    /// Runs `body` on the loop's thread every `interval`, starting one `interval` from now, at a fixed rate.
    ///
    /// Callable from any thread. Firing *k* is due at `start + k × interval`; firings the loop reaches late are
    /// skipped rather than run back to back, and counted in ``Scheduled/skippedFirings``.
    ///
    /// ```swift
    /// loop.scheduleRepeating(every: .seconds(30)) { task in
    ///     if connection.assumeIsolated({ $0.isClosed }) { task.cancel() } else { sendKeepAlive() }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: The period. Must be positive: anything else is reported to `Diagnostics` and treated as one
    ///     nanosecond.
    ///   - site: Where the timer was scheduled (`scheduleRepeating(every:) { … }` passes the caller's).
    ///   - body: The work to run; it receives the task, so it can cancel itself.
    /// - Returns: The task, for cancelling. On a stopped loop it comes back already cancelled.
    /// - Complexity: O(log n) per firing in the number of scheduled timers.
    @discardableResult
    public func scheduleRepeating(
        every interval: Duration,
        from site: LoopSite,
        _ body: @escaping @Sendable (Scheduled) -> Void
    ) -> Scheduled {
        let interval = _validRepeatingInterval(interval, caller: "EventLoop.scheduleRepeating")
        let deadline = now + interval
        return driver.timers.schedule(
            deadline: deadline.nanoseconds,
            interval: interval,
            site: site,
            body: .repeating(serviceContext.carry(repeatingJob: body))
        )
    }
}
