/// What a ``LoopClock`` needs from its loop: the time, and a one-shot timer that wakes a waiting task.
///
/// Every member is thread-safe.
package protocol _LoopClockSource: AnyObject, Sendable {
    /// The loop's current time.
    var clockNow: LoopInstant { get }

    /// The resolution of the loop's timers.
    var clockResolution: Duration { get }

    /// Whether the time is a real clock's (`MainLoop`, `EventLoop`): reading it or sleeping on it during an exploration
    /// run is an escape from virtual time.
    var readsRealTime: Bool { get }

    /// Arms a one-shot timer at `deadline` that completes `runGuard`'s run on the loop; `onMainActor` says the caller
    /// runs on the main actor (a main-actor loop then arms at once, without a post).
    ///
    /// The timer's body holds `runGuard`: when the body is released without running — the loop stopped, or refused
    /// the arming post — the guard's release makes the waiting task throw `LoopStopped`. The timer is attached to the
    /// run, so that cancelling the waiting task cancels it.
    func armTimer(at deadline: LoopInstant, onMainActor: Bool, _ runGuard: _LoopRunGuard<Void>)

    /// Takes the current task into the loop's time: called by a task about to sleep on the clock, and by a view-model
    /// scope's task as it starts. A virtual-time loop keeps the task's jobs where its stepping waits for them (see
    /// `_VirtualTimeTasks`); real loops do nothing.
    func adoptCurrentTask()

    /// Lets go of the current task, taken in by ``adoptCurrentTask()``: called by a view-model scope's task when its
    /// operation returns. Real loops do nothing.
    func releaseCurrentTask()
}

extension _LoopClockSource {
    package var readsRealTime: Bool { false }
    package func adoptCurrentTask() {}
    package func releaseCurrentTask() {}
}
