import Atomics
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The tasks a virtual-time loop (`TestLoop`) has taken in, and the runtime hook that keeps their jobs on the main
/// actor's executor.
///
/// Why: `TestLoop`'s async stepping waits for the tasks it wakes by draining the main queue — one FIFO that serves
/// the main actor — round after round until a round changes nothing. A task that leaves the main actor in between
/// (`Task.sleep(for:clock:)` is `nonisolated` and hops to the global executor; so does any `nonisolated` async
/// function) would run on a pool thread, in parallel with that check, and could come back after it. So every job of
/// a taken-in task that the runtime would hand to the global executor is enqueued on the main actor's executor
/// instead: still a `nonisolated` job (any executor may run it), but now in the FIFO the stepping drains. This is
/// what swift-concurrency-extras' `withMainSerialExecutor` does for every task of the process; here it applies only
/// to the tasks a test loop took in, so the rest of a parallel test process keeps its thread pool.
///
/// A task is taken in when it waits on a virtual-time loop (a clock sleep) or is launched into a view-model scope of
/// one; it stays in until it is let go (a view-model scope's task when its operation returns) or its loop is freed.
/// A task is known by its address and its id: a task that finished without being let go leaves an entry behind,
/// and when another task reuses that address the ids differ, so the newcomer keeps the global executor and the stale
/// entry is dropped.
///
/// During an exploration run (`_TaskLane`), the tasks of the run join its lane instead: their jobs for the global
/// executor are held in the lane until the test loop's stepping runs them in the schedule's order. A task joins when
/// it sleeps on or runs in a scope of one of the run's loops (as above), or when code of the run starts it on the global
/// executor (`Task.detached { }`, `Task { }` outside an actor, a child task of such code): a task created during the run
/// and enqueued by the run's code. The run's driver (the task running the body) never joins. Jobs for the main actor
/// keep its FIFO (see `_VirtualTimeTasks+Hooks.swift` for why).
///
/// The hook (the runtime's `swift_task_enqueueGlobal_hook`, found with `dlsym`: see `_VirtualTimeTasks+Hooks.swift`)
/// is installed the first time a task is taken in or a lane starts watching, and chains to any hook installed before
/// it. With no task taken in and no lane watching, it costs every global enqueue two atomic loads.
///
/// All operations on `_VirtualTimeTasks` are thread-safe.
package enum _VirtualTimeTasks {
    /// One taken-in task: its id (to tell a reused address), the loop that took it in (`nil`: it joined a lane by
    /// being started), and the lane of the exploration run it belongs to.
    struct Entry {
        var id: UInt64
        var owner: ObjectIdentifier?
        var lane: _TaskLane?
    }

    struct State {
        /// Task address → the task's entry.
        var tasks: [UnsafeRawPointer: Entry] = [:]
        var installed = false
    }

    static let state = _Locked(State())
    /// `state.tasks.count`, readable without the lock on the hooks' fast path (written under the lock).
    static let count = ManagedAtomic(0)

    /// Takes the current task into virtual time on behalf of `owner`, and into `lane` when the loop belongs to an
    /// exploration run. No-op outside a task.
    package static func adoptCurrentTask(owner: AnyObject, lane: _TaskLane? = nil) {
        guard let task = currentTask else { return }
        let owner = ObjectIdentifier(owner)
        state.withLock { state in
            installIfNeeded(&state)
            let joined = state.tasks[task.address].flatMap { $0.id == task.id ? $0.lane : nil }
            state.tasks[task.address] = Entry(id: task.id, owner: owner, lane: lane ?? joined)
            count.store(state.tasks.count, ordering: .releasing)
        }
    }

    /// Lets go of the current task (its work for the loop is done): its jobs go to the global executor again.
    package static func releaseCurrentTask() {
        guard let task = currentTask else { return }
        state.withLock { state in
            guard state.tasks[task.address]?.id == task.id else { return }
            state.tasks[task.address] = nil
            count.store(state.tasks.count, ordering: .releasing)
        }
    }

    /// The current task's address and id; `nil` outside a task.
    static var currentTask: (address: UnsafeRawPointer, id: UInt64)? {
        withUnsafeCurrentTask { task in
            // A task is a job: the same object, so the runtime's job-id query answers for the task.
            task.map { task in
                (unsafeBitCast(task, to: UnsafeRawPointer.self), _jobTaskID(unsafeBitCast(task, to: UnownedJob.self)))
            }
        }
    }

    /// The current task's id; `nil` outside a task. Thread-safe.
    package static var currentTaskID: UInt64? { currentTask?.id }

    /// Lets go of every task `owner` took in (its loop is being freed).
    package static func releaseAll(owner: AnyObject) {
        let owner = ObjectIdentifier(owner)
        state.withLock { state in
            state.tasks = state.tasks.filter { $0.value.owner != owner }
            count.store(state.tasks.count, ordering: .releasing)
        }
    }

    /// Lets go of every task that joined `lane` by being started (its run is over); tasks a loop took in stay its.
    static func releaseAll(lane: _TaskLane) {
        state.withLock { state in
            state.tasks = state.tasks.filter { $0.value.owner != nil || $0.value.lane !== lane }
            count.store(state.tasks.count, ordering: .releasing)
        }
    }

    /// How many tasks `owner` has taken in and not let go of (for the package's tests).
    package static func adoptedTaskCount(owner: AnyObject) -> Int {
        let owner = ObjectIdentifier(owner)
        return state.withLock { $0.tasks.values.count { $0.owner == owner } }
    }

    /// Whether the current task has been taken in (for the package's tests).
    package static var isCurrentTaskAdopted: Bool {
        guard let task = currentTask else { return false }
        return state.withLock { $0.tasks[task.address]?.id == task.id }
    }

    /// The watching lane the code running now belongs to, and where it runs ("the test body", "task N of the run", "a
    /// thread the loop did not start"): the lane bound to the current task (`_TaskLane.current`), or the lane of the
    /// current task's entry. `nil` for code of no watching run.
    package static func laneOfCurrentCode() -> (lane: _TaskLane, context: String)? {
        let task = currentTask
        let lane =
            _TaskLane.current
            ?? task.flatMap { task in
                state.withLock { state in state.tasks[task.address].flatMap { $0.id == task.id ? $0.lane : nil } }
            }
        guard let lane, lane.isActive else { return nil }
        guard let task else { return (lane, "a thread the loop did not start") }
        if lane.isDriver(task.id) { return (lane, "the test body") }
        return (
            lane,
            lane.number(ofTask: task.id).map { "task \($0) of the run" } ?? "a task the run started on the main actor"
        )
    }

    /// Jobs of taken-in tasks enqueued on the main queue and not yet run.
    private static let pending = _Locked(0)

    /// Whether a job of a taken-in task waits on the main queue: `TestLoop`'s stepping is not quiet until none does.
    package static var hasPendingJobs: Bool { pending.withLock { $0 > 0 } }

    /// Runs `job` in a block of the main queue, as the main actor's executor: the same FIFO as `TestLoop`'s rounds
    /// (Swift's main-executor enqueues are a lane of their own that a dispatch block can overtake), and counted, so
    /// the stepping knows when it has run. Running as the main executor also keeps the task's hop back to main-actor
    /// code inline, instead of one more enqueue — which for a job held for an exploration run keeps that code under
    /// the schedule, as main-actor enqueues cannot be (see `_VirtualTimeTasks+Hooks.swift`). The price: a job of
    /// `nonisolated` code first switches back to the global executor (one more enqueue and choice, no step of its own).
    /// Running it as the global executor instead (`runSynchronously(on:)` a task executor) was tried: its task's next
    /// enqueues then go to that task executor, past the hook, and the runs stop being deterministic. Thread-safe.
    package static func runOnMainQueue(_ job: UnownedJob) {
        pending.withLock { $0 += 1 }
        DispatchQueue.main.async {
            job.runSynchronously(on: MainActor.sharedUnownedExecutor)
            pending.withLock { $0 -= 1 }
        }
    }

    /// Takes `job` (enqueued for the global executor) over if it belongs to a taken-in task or joins a watching lane:
    /// holds it in its lane, or runs it on the main queue. Returns whether it took the job. Called by the hook, on the
    /// enqueuing thread.
    static func intercept(_ job: UnownedJob) -> Bool {
        let id = _jobTaskID(job)
        guard id != 0 else { return false }
        let address = unsafeBitCast(job, to: UnsafeRawPointer.self)
        let known: Entry? = state.withLock { state in
            guard let entry = state.tasks[address] else { return nil }
            if entry.id == id { return entry }
            // A freed task's entry, its address now reused.
            state.tasks[address] = nil
            count.store(state.tasks.count, ordering: .releasing)
            return nil
        }
        if let known {
            if let lane = known.lane, lane.hold(job, taskID: id) { return true }
            runOnMainQueue(job)
            return true
        }
        // A task started by code of a watching run joins its lane.
        guard _TaskLane.watching.load(ordering: .relaxed) > 0, let lane = laneOfCurrentCode()?.lane,
            lane.mayAdopt(taskID: id)
        else { return false }
        state.withLock { state in
            state.tasks[address] = Entry(id: id, owner: nil, lane: lane)
            count.store(state.tasks.count, ordering: .releasing)
        }
        if lane.hold(job, taskID: id) { return true }
        runOnMainQueue(job)
        return true
    }
}

/// The id of `job`'s task (0 for a job that is not a task): the runtime's exported query, which the standard library
/// itself declares this way for `UnownedJob`'s description.
@_silgen_name("swift_task_getJobTaskId")
func _jobTaskID(_ job: UnownedJob) -> UInt64
