/// The clock source of a main-actor loop (`MainLoop`, `TestLoop`, a ``Loop`` of the user's): timers are the loop's
/// own, armed on the main actor.
package final class _MainActorLoopClockSource<L: Loop>: _LoopClockSource {
    /// Weak: a clock does not keep its loop alive (the loop holds its clock); a sleep on a freed loop's clock throws
    /// `LoopStopped`.
    private weak let loop: L?
    private let now: @Sendable () -> LoopInstant
    private let virtual: Bool
    /// The exploration run's lane the loop belongs to (`TestLoop` with a schedule): tasks taken in join it.
    private let lane: _TaskLane?
    package let clockResolution: Duration
    package let readsRealTime: Bool

    /// - Parameters:
    ///   - loop: The loop whose timers sleeps arm.
    ///   - now: The loop's time, thread-safe.
    ///   - resolution: The resolution of the loop's timers.
    ///   - virtual: Whether the loop runs virtual time, so that waiting tasks are taken into it (`TestLoop`, which
    ///     lets go of them with `_VirtualTimeTasks.releaseAll(owner:)` when it is freed).
    ///   - lane: The lane of the exploration run the (virtual-time) loop belongs to, if any.
    ///   - realTime: Whether `now` reads a real clock (`MainLoop`): reading or sleeping on it during an exploration run
    ///     is an escape from virtual time (`_Escape`). A ``Loop`` of the user's says nothing about its clock.
    package init(
        loop: L,
        now: @escaping @Sendable () -> LoopInstant,
        resolution: Duration,
        virtual: Bool = false,
        lane: _TaskLane? = nil,
        realTime: Bool = false
    ) {
        self.loop = loop
        self.now = now
        self.clockResolution = resolution
        self.virtual = virtual
        self.lane = lane
        self.readsRealTime = realTime
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
        if virtual, let loop { _VirtualTimeTasks.adoptCurrentTask(owner: loop, lane: lane) }
    }

    package func releaseCurrentTask() {
        if virtual { _VirtualTimeTasks.releaseCurrentTask() }
    }
}
