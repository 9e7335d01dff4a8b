import MainlineLoopCore

/// The clock source of an ``EventLoop``: the loop's real-time clock, and its thread-safe timers.
final class _EventLoopClockSource: _LoopClockSource {
    /// Weak: a clock does not keep its loop alive; a sleep on a freed loop's clock throws `LoopStopped`.
    private weak let loop: EventLoop?

    init(loop: EventLoop) {
        self.loop = loop
    }

    var clockNow: LoopInstant { _MonotonicClock.now() }

    var clockResolution: Duration { .milliseconds(1) }

    var readsRealTime: Bool { true }

    func armTimer(at deadline: LoopInstant, onMainActor _: Bool, _ runGuard: _LoopRunGuard<Void>) {
        guard let loop else { return }  // Releases the guard: the task throws `LoopStopped`.
        // Thread-safe; on a stopped loop the body (and the guard) is released at once.
        let timer = loop.schedule(at: deadline) { runGuard.run.runBody {} }
        runGuard.run.attach(timer)
    }
}
