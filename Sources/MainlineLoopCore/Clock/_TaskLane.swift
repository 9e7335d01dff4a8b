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
    private var isWatching = false
    /// The held jobs, in the order they were enqueued, each with its task's number in the run.
    private var held: [(job: UnownedJob, task: Int)] = []
    /// Task id → its number in the run (1, 2, … in the order the tasks joined), which names it in the schedule's log.
    private var numbers: [UInt64: Int] = [:]
    /// The task that runs the body (and steps the loops): never held, or nothing would step.
    private var driver: UInt64 = 0
    /// Tasks created before the run began have ids at or below this; only newer tasks join by being started.
    private var firstTaskID: UInt64 = 0
    /// Tasks inside `outsideVirtualTime`: their resumptions from outside the run are not escapes.
    private var allowedTasks: [UInt64: Int] = [:]
    private var escapes: [_Escape] = []
    /// How many async steps of the run's test loops are running: while one is, it takes the held jobs (``take()``).
    private var stepping = 0
    /// Whether a ``pump()`` block is on the main queue.
    private var pumpQueued = false
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
        let started: Bool = lock.withLock {
            defer { isWatching = true }
            self.driver = driver
            self.firstTaskID = firstTaskID
            return !isWatching
        }
        if started { Self.watching.wrappingIncrement(ordering: .relaxed) }
    }

    /// Stops watching, hands every held job to the main queue (in the order they were held), and returns what escaped.
    package func finish() -> [_Escape] {
        let (wasWatching, jobs, escaped): (Bool, [UnownedJob], [_Escape]) = lock.withLock {
            defer {
                isWatching = false
                held = []
                escapes = []
            }
            return (isWatching, held.map(\.job), escapes)
        }
        if wasWatching { Self.watching.wrappingDecrement(ordering: .relaxed) }
        _VirtualTimeTasks.releaseAll(lane: self)
        for job in jobs { _VirtualTimeTasks.runOnMainQueue(job) }
        return escaped
    }

    /// Whether the lane is watching a run.
    package var isActive: Bool { lock.withLock { isWatching } }

    /// Whether task `id` may join because the run's code started it: a task newer than the run, and not its driver.
    func mayAdopt(taskID id: UInt64) -> Bool {
        lock.withLock { isWatching && id > firstTaskID && id != driver }
    }

    /// Whether task `id` is the run's driver.
    func isDriver(_ id: UInt64) -> Bool { lock.withLock { id == driver } }

    /// Holds `job` of task `taskID` until the stepping takes it; `false` when the caller runs it at once instead (on
    /// the main queue, FIFO): once the lane has finished, and for a job enqueued from off the main actor — the task
    /// coming back from outside the run (real I/O, a thread, a real sleep), which no schedule orders and which the code
    /// that waits for it may not step for. Coming back from outside is an escape, unless the task is inside
    /// `outsideVirtualTime`.
    func hold(_ job: UnownedJob, taskID: UInt64) -> Bool {
        let fromOutside = !_RunningLoop.isOnMainActor
        return lock.withLock {
            guard isWatching else { return false }
            let number = numberLocked(taskID)
            guard fromOutside else {
                held.append((job, number))
                queuePumpLocked()
                return true
            }
            if allowedTasks[taskID] == nil {
                escapes.append(
                    _Escape(
                        kind: .realWait,
                        detail: "task \(number) of the run was resumed from outside it",
                        context: "a thread the loop did not start"
                    )
                )
            }
            return false
        }
    }

    private func numberLocked(_ taskID: UInt64) -> Int {
        if let number = numbers[taskID] { return number }
        let number = numbers.count + 1
        numbers[taskID] = number
        return number
    }

    /// The number that names task `taskID` in this run, if it joined.
    func number(ofTask taskID: UInt64) -> Int? { lock.withLock { numbers[taskID] } }

    /// Whether a job is held.
    package var hasHeldJobs: Bool { lock.withLock { !held.isEmpty } }

    /// Takes one held job, the one the lane's chooser picks; `nil` when nothing is held. Call it where the lane's
    /// loops run (the main actor).
    package func take() -> UnownedJob? {
        let (tasks, chooser): ([Int], (@Sendable ([Int]) -> Int)?) = lock.withLock { (held.map(\.task), self.chooser) }
        guard !tasks.isEmpty else { return nil }
        let index = min(max(chooser?(tasks) ?? 0, 0), tasks.count - 1)
        // Only the main actor removes (held jobs are only appended meanwhile), so the index still names the same job.
        return lock.withLock { index < held.count ? held.remove(at: index).job : nil }
    }

    /// A test loop's async step begins (`true`) or ends: while any runs, held jobs wait for it to take them. When the
    /// last ends with jobs still held, the pump takes over.
    package func stepping(_ begins: Bool) {
        lock.withLock {
            stepping += begins ? 1 : -1
            if stepping == 0 && !held.isEmpty { queuePumpLocked() }
        }
    }

    /// Queues a ``pump()`` on the main queue unless one is queued. Call it with the lock held.
    private func queuePumpLocked() {
        guard !pumpQueued else { return }
        pumpQueued = true
        DispatchQueue.main.async { self.pump() }
    }

    /// Runs one held job — the chooser's pick — when no test loop is stepping: the run's code is waiting on something
    /// else (a task's value, a continuation), and the held tasks are what it waits for. Queues itself again while jobs
    /// are held. Runs in a block of the main queue, as the main actor's executor (`_VirtualTimeTasks.runOnMainQueue`).
    ///
    /// Without it, a body that awaits a task it started (`await task.value`) without stepping a loop would wait
    /// forever: the task's jobs would be held for a step that never comes.
    private func pump() {
        let idle: Bool = lock.withLock {
            pumpQueued = false
            return stepping == 0 && isWatching
        }
        guard idle, let job = take() else { return }
        job.runSynchronously(on: MainActor.sharedUnownedExecutor)
        lock.withLock { if !held.isEmpty { queuePumpLocked() } }
    }

    /// Marks task `taskID` as inside `outsideVirtualTime` (`entering`), or as having left it.
    package func allow(taskID: UInt64, entering: Bool) {
        lock.withLock {
            allowedTasks[taskID, default: 0] += entering ? 1 : -1
            if allowedTasks[taskID] == 0 { allowedTasks[taskID] = nil }
        }
    }

    /// Records `escape`, if the lane is watching.
    package func record(_ escape: _Escape) {
        lock.withLock { if isWatching { escapes.append(escape) } }
    }
}
