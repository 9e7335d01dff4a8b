/// The clock source of a main-actor loop (`MainLoop`, `TestLoop`, a ``Loop`` of the user's): timers are the loop's
/// own, armed on the main actor.
package final class _MainActorLoopClockSource<L: Loop>: _LoopClockSource {
    /// Weak: a clock does not keep its loop alive (the loop holds its clock); a sleep on a freed loop's clock throws
    /// `LoopStopped`.
    private weak let loop: L?
    private let now: @Sendable () -> LoopInstant
    private let virtual: Bool
    package let clockResolution: Duration

    /// - Parameters:
    ///   - loop: The loop whose timers sleeps arm.
    ///   - now: The loop's time, thread-safe.
    ///   - resolution: The resolution of the loop's timers.
    ///   - virtual: Whether the loop runs virtual time, so that waiting tasks are taken into it (`TestLoop`, which
    ///     lets go of them with `_VirtualTimeTasks.releaseAll(owner:)` when it is freed).
    package init(loop: L, now: @escaping @Sendable () -> LoopInstant, resolution: Duration, virtual: Bool = false) {
        self.loop = loop
        self.now = now
        self.clockResolution = resolution
        self.virtual = virtual
    }

    package var clockNow: LoopInstant { now() }

    package func armTimer(at deadline: LoopInstant, onMainActor: Bool, _ runGuard: _LoopRunGuard<Void>) {
        guard let loop else { return }  // Releases the guard: the task throws `LoopStopped`.
        // Armed on the main actor; the body owns the guard, so a timer cancelled at shutdown releases it and the
        // waiting task throws `LoopStopped`.
        let arm: @MainActor @Sendable () -> Void = {
            let timer = loop.schedule(at: deadline) { runGuard.run.runBody {} }
            runGuard.run.attach(timer)
        }
        // `onMainActor` is the caller's static isolation; `_RunningLoop.isOnMainActor` proves it at run time (it never
        // traps, unlike `assumeIsolated` when the runtime disagrees). Unproven, the post below is always correct.
        if onMainActor, _RunningLoop.isOnMainActor {
            MainActor.assumeIsolated(arm)
        } else {
            // A refused post releases `arm`, and with it the guard: the task throws `LoopStopped`.
            loop.post(arm)
        }
    }

    package func adoptCurrentTask() {
        if virtual, let loop { _VirtualTimeTasks.adoptCurrentTask(owner: loop) }
    }

    package func releaseCurrentTask() {
        if virtual { _VirtualTimeTasks.releaseCurrentTask() }
    }
}
