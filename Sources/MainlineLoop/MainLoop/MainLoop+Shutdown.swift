import MainlineLoopCore

extension MainLoop {
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
