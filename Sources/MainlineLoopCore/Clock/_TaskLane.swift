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

    /// Creates a lane that is not watching yet. Callable from any thread.
    package init() {}

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

    /// Holds `job` of task `taskID` until the stepping takes it; `false` once the lane has finished (the caller runs
    /// it as before). A job enqueued from off the main actor is the task coming back from outside the run: an escape,
    /// unless the task is inside `outsideVirtualTime`.
    func hold(_ job: UnownedJob, taskID: UInt64) -> Bool {
        let fromOutside = !_RunningLoop.isOnMainActor
        return lock.withLock {
            guard isWatching else { return false }
            let number = numberLocked(taskID)
            held.append((job, number))
            if fromOutside && allowedTasks[taskID] == nil {
                escapes.append(
                    _Escape(
                        kind: .realWait,
                        detail: "task \(number) of the run was resumed from outside it",
                        context: "a thread the loop did not start"
                    )
                )
            }
            return true
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

    /// Takes one held job: `choose` is given the held jobs' task numbers in the order they were held (the first is what
    /// a FIFO runs) and returns an index. `nil` when nothing is held. Call it where the lane's loops run (main actor).
    package func take(_ choose: ([Int]) -> Int) -> UnownedJob? {
        let tasks: [Int] = lock.withLock { held.map(\.task) }
        guard !tasks.isEmpty else { return nil }
        let index = min(max(choose(tasks), 0), tasks.count - 1)
        // Only this caller removes (held jobs are only appended meanwhile), so the index still names the same job.
        return lock.withLock { index < held.count ? held.remove(at: index).job : nil }
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
