import Atomics
import Dispatch

/// The tasks of one exploration run, held for its schedule, and what escaped virtual time during it.
///
/// A test schedule (`MainlineTesting`'s `TestSchedule`) owns one lane. While `explore` runs a body under the schedule,
/// the lane is *watching*:
///
/// - **Tasks.** Every task the body starts on the global executor (`Task.detached { }`, `Task { }` outside an actor,
///   child tasks of such code), every task those start, and every task that sleeps on one of the run's test loops'
///   clocks or runs in a view-model scope of one, joins the lane (`_VirtualTimeTasks`). Its jobs for the global
///   executor are *held* here instead of running, and the test loop's async stepping runs them one at a time, in the
///   order the schedule chooses (``take(_:)``). So the order of tasks' jobs is the schedule's, as the order of posts
///   and timers is. (Jobs for the main actor keep its FIFO: the runtime offers no hook for them.)
/// - **Escapes.** Reading a real loop's clock, sleeping on one, posting to a test loop from a thread it did not start, and a
///   held task resumed from outside the run (it waited on real I/O or a thread) are recorded (``note(_:_:)``), and
///   `explore` fails the run with them — unless the code said so (``allowance``, `outsideVirtualTime`).
///
/// While the run's code awaits something other than a step (a task's value, a continuation), no loop takes the held
/// jobs: then the lane runs them itself, one per block of the main queue, in the order the schedule chooses (``pump()``).
///
/// When the run ends (``finish()``) the lane stops watching and hands the jobs it still holds to the main queue, so no
/// task is kept forever; its tasks then run as any virtual-time task does.
///
/// Thread-safe: every member may be called from any thread.
package final class _TaskLane: @unchecked Sendable {
    // @unchecked Sendable: every mutable property is protected by `lock`.

    /// The lane whose run the current task belongs to: bound by `explore` around the body (task-local, so the tasks
    /// the body starts with `Task { }` see it too; detached tasks are found through `_VirtualTimeTasks`).
    @TaskLocal package static var current: _TaskLane?

    /// Why the code running now may leave virtual time (`outsideVirtualTime`); `nil` when it may not. Task-local, and
    /// bound on a plain thread too (a synchronous binding holds for that thread).
    @TaskLocal package static var allowance: String?

    /// How many lanes are watching, for the checks' fast path: with none, a check costs one atomic load.
    package static let watching = ManagedAtomic(0)

    /// Whether any lane is watching a run (one atomic load). Thread-safe.
    @inline(__always)
    package static var isAnyWatching: Bool { watching.load(ordering: .relaxed) > 0 }

    private let lock = _Lock()
    /// What the lane knows (see `_TaskLane.State`); read and changed only under `lock`.
    private var state = State<UnownedJob>()
    /// Chooses among held jobs, given their tasks' numbers in the order they were held; returns an index. Set once, by
    /// the schedule that owns the lane, before the lane watches.
    private var chooser: (@Sendable ([Int]) -> Int)?

    /// Creates a lane that is not watching yet. Callable from any thread.
    package init() {}

    /// Sets what chooses among held jobs (the owning schedule; the first job when unset).
    package func choose(with chooser: @escaping @Sendable ([Int]) -> Int) {
        lock.withLock { self.chooser = chooser }
    }

    /// Starts watching: the run's body runs in task `driver`; tasks with ids above `firstTaskID` may join when started.
    package func begin(driver: UInt64, firstTaskID: UInt64) {
        _VirtualTimeTasks.installHooks()
        let started = lock.withLock { state.begin(State.Run(driver: driver, firstTaskID: firstTaskID)) }
        if started { Self.watching.wrappingIncrement(ordering: .relaxed) }
    }

    /// Stops watching, hands every held job to the main queue (in the order they were held), and returns what escaped.
    package func finish() -> [_Escape] {
        let (wasWatching, jobs, escaped) = lock.withLock { state.finish() }
        if wasWatching { Self.watching.wrappingDecrement(ordering: .relaxed) }
        _VirtualTimeTasks.releaseAll(lane: self)
        for job in jobs { _VirtualTimeTasks.runOnMainQueue(job) }
        return escaped
    }

    /// Whether the lane is watching a run.
    package var isActive: Bool { lock.withLock { state.run != nil } }

    /// Whether task `id` may join because the run's code started it: a task newer than the run, and not its driver.
    func mayAdopt(taskID id: UInt64) -> Bool { lock.withLock { state.mayAdopt(taskID: id) } }

    /// Whether task `id` is the run's driver.
    func isDriver(_ id: UInt64) -> Bool { lock.withLock { state.isDriver(id) } }

    /// Holds `job` of task `taskID` until a step or the pump takes it; `false` when the caller runs it at once instead
    /// (on the main queue, FIFO): once the lane has finished, and for a job enqueued from off the main actor (see
    /// `State.hold(_:taskID:fromOutside:)`).
    func hold(_ job: UnownedJob, taskID: UInt64) -> Bool {
        let fromOutside = !_RunningLoop.isOnMainActor
        switch lock.withLock({ state.hold(job, taskID: taskID, fromOutside: fromOutside) }) {
        case .held(let queuePump):
            if queuePump { queuePumpBlock() }
            return true
        case .runNow:
            return false
        }
    }

    /// The number that names task `taskID` in this run, if it joined.
    func number(ofTask taskID: UInt64) -> Int? { lock.withLock { state.number(ofTask: taskID) } }

    /// Whether a job is held.
    package var hasHeldJobs: Bool { lock.withLock { state.hasHeldJobs } }

    /// Takes one held job, the one the lane's chooser picks; `nil` when nothing is held. Call it where the lane's
    /// loops run (the main actor).
    package func take() -> UnownedJob? {
        let (tasks, chooser) = lock.withLock { (state.heldTasks, self.chooser) }
        guard !tasks.isEmpty else { return nil }
        // The chooser is asked outside the lock (it takes the schedule's). Only the main actor removes, and held jobs
        // are only appended meanwhile, so the index still names the same job.
        let index = chooser?(tasks) ?? 0
        return lock.withLock { state.take(at: index) }
    }

    /// A test loop's async step begins (`true`) or ends: while any runs, held jobs wait for it to take them. When the
    /// last ends with jobs still held, the pump takes over.
    package func stepping(_ begins: Bool) {
        if lock.withLock({ state.stepping(begins: begins) }) { queuePumpBlock() }
    }

    /// Queues ``pump()`` on the main queue (the state said one is due and none is queued).
    private func queuePumpBlock() {
        DispatchQueue.main.async { self.pump() }
    }

    /// Runs one held job — the chooser's pick — when no test loop is stepping: the run's code is waiting on something
    /// else (a task's value, a continuation), and the held tasks are what it waits for. Queues itself again while jobs
    /// are held. Runs in a block of the main queue, as the main actor's executor (`_VirtualTimeTasks.runOnMainQueue`).
    ///
    /// Without it, a body that awaits a task it started (`await task.value`) without stepping a loop would wait
    /// forever: the task's jobs would be held for a step that never comes.
    private func pump() {
        guard lock.withLock({ state.pumpRuns() }), let job = take() else { return }
        job.runSynchronously(on: MainActor.sharedUnownedExecutor)
        if lock.withLock({ state.pumpRanJob() }) { queuePumpBlock() }
    }

    /// Marks task `taskID` as inside `outsideVirtualTime` (`entering`), or as having left it.
    package func allow(taskID: UInt64, entering: Bool) {
        lock.withLock { state.allow(taskID: taskID, entering: entering) }
    }

    /// Records `escape`, if the lane is watching.
    package func record(_ escape: _Escape) {
        lock.withLock { state.record(escape) }
    }
}
