import MainlineLoopCore

extension MainLoop {
    /// What the loop holds and has done now: pending posts, timers, settle notifications, the iteration and phase it
    /// is in, its counters, its state and ``now``. Must be called on the main actor.
    ///
    /// On the main actor — in a signal handler, a timer, posted work — the snapshot is taken at once, and its
    /// `LoopSnapshot.phase` is the phase of the code that took it. From any other thread, in async code,
    /// `await MainLoop.main.snapshot()`: the call hops onto the main actor, which the loop serves in every hosting
    /// mode (and which still answers once the loop has stopped). From code that cannot `await`, post:
    /// `MainLoop.main.post { log(MainLoop.main.snapshot()) }`.
    ///
    /// ```swift
    /// MainLoop.main.onSignal(.sigusr1) { _ in
    ///     logger.info("\(MainLoop.main.snapshot())")
    /// }
    /// ```
    ///
    /// Taking a snapshot never attaches an idle loop (see ``attachAsGuest()``): it reports `idle`.
    ///
    /// - Returns: The snapshot; `LoopSnapshot.state` is this loop's ``state``.
    /// - Complexity: O(t log t + s) in the scheduled timers and the pending settle notifications. Taking no
    ///   snapshot costs the loop nothing beyond a marker write per phase and a counter add per phase.
    @MainActor
    public func snapshot() -> LoopSnapshot {
        core.snapshot(loop: "MainLoop", state: LoopSnapshot.State(state), now: now)
    }
}

extension MainLoop {
    /// The loop's flight recorder: what it did in the last seconds — iterations, slow work with its site, stalls,
    /// mailbox drops — and its loop delay. Always on. Thread-safe: read it from any thread, even while the loop is
    /// stalled.
    public nonisolated var flightRecorder: LoopFlightRecorder { core.scheduler.recorder }
}

extension LoopSnapshot.State {
    /// The state of a main loop.
    ///
    /// - Parameter state: A ``MainLoop/State``.
    public init(_ state: MainLoop.State) {
        switch state {
        case .idle: self = .idle
        case .guest: self = .guest
        case .owner: self = .owner
        case .stopping: self = .stopping
        case .stopped: self = .stopped
        }
    }
}
