extension MainLoop: _CoreOwningLoop {
    // MARK: Labels

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
    /// main actor. See ``Loop/schedule(after:_:)``.
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
    /// the main actor. See ``Loop/scheduleRepeating(every:_:)``.
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

    // MARK: Instrumentation

    /// Starts reporting the loop's metrics (and, if configured, watching it for stalls), or with `nil` stops.
    ///
    /// Must be called on the main actor. Replaces any instrumentation installed before (stopping its watchdog).
    /// Ignored once the loop has stopped; stopping the loop reports the last iteration and stops the watchdog.
    ///
    /// ```swift
    /// MainLoop.main.instrument(
    ///     LoopInstrumentation(dimensions: [("service", "quotes")], watchdog: LoopWatchdog(threshold: .milliseconds(100)))
    /// )
    /// ```
    ///
    /// - Parameter instrumentation: Where metrics and stall reports go; see ``LoopInstrumentation`` for the metrics.
    @MainActor
    public func instrument(_ instrumentation: LoopInstrumentation?) {
        core.instrument(instrumentation)
    }

    // MARK: Graceful shutdown

    /// Registers `body` to run on the loop when it stops, after the work already posted and settle, before timers
    /// are cancelled and handles closed. Must be called on the main actor.
    ///
    /// The same drain runs whoever stops the loop: ``stop()`` from any thread, a signal handler in owner mode
    /// (``stopOnTerminationSignals(_:drainDeadline:)``), or `MainLoopService` at a service group's graceful shutdown.
    ///
    /// ```swift
    /// let hook = loop.onShutdown { connections.closeAll() }
    /// ```
    ///
    /// - Parameter body: The work to run at shutdown; posting from it is refused.
    /// - Returns: The registration, for cancelling. On a stopped loop it comes back already cancelled.
    @MainActor @discardableResult
    public func onShutdown(_ body: @escaping @MainActor () -> Void) -> ShutdownRegistration {
        core.onShutdown(body)
    }

    /// Stops the loop gracefully when one of `signals` arrives: owner mode's equivalent of a service group that owns
    /// SIGTERM and SIGINT. Must be called on the main actor.
    ///
    /// ```swift
    /// // main.swift — a synchronous main
    /// let loop = MainLoop.main
    /// loop.stopOnTerminationSignals()
    /// loop.onShutdown { server.closeAllConnections() }
    /// loop.run()   // returns once SIGTERM or SIGINT has drained the loop
    /// ```
    ///
    /// - Parameters:
    ///   - signals: The signals that stop the loop; SIGTERM and SIGINT by default.
    ///   - drainDeadline: How long the drain may run posted work before releasing the rest unrun (see
    ///     ``stop(drainDeadline:)``); `nil` (the default) runs all of it.
    /// - Returns: The registrations, for cancelling.
    @MainActor @discardableResult
    public func stopOnTerminationSignals(
        _ signals: [LoopSignal] = [.sigterm, .sigint],
        drainDeadline: Duration? = nil
    ) -> [SignalRegistration] {
        signals.map { signal in
            onSignal(signal) { [weak self] _ in
                if let drainDeadline { self?.stop(drainDeadline: drainDeadline) } else { self?.stop() }
            }
        }
    }
}
