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
/// The hook (`swift_task_enqueueGlobal_hook`, the runtime's public hook variable, found with `dlsym`) is installed
/// the first time a task is taken in and chains to any hook installed before it. With no task taken in, it costs
/// every global enqueue one atomic load.
///
/// All operations on `_VirtualTimeTasks` are thread-safe.
package enum _VirtualTimeTasks {
    private typealias Original = @convention(thin) (UnownedJob) -> Void
    private typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    private struct State {
        /// Task address → the task's id and the loop (clock source) that took it in.
        var tasks: [UnsafeRawPointer: (id: UInt64, owner: ObjectIdentifier)] = [:]
        var installed = false
    }

    private static let state = _Locked(State())
    /// `state.tasks.count`, readable without the lock on the hook's fast path (written under the lock).
    private static let count = ManagedAtomic(0)
    /// The hook installed before ours (a thin function pointer's address; 0 for none), called for every job that is
    /// not ours; stored before our hook is, never changed after.
    private static let previous = ManagedAtomic(0)

    /// Takes the current task into virtual time on behalf of `owner`. No-op outside a task.
    package static func adoptCurrentTask(owner: AnyObject) {
        guard let task = currentTask else { return }
        let owner = ObjectIdentifier(owner)
        state.withLock { state in
            if !state.installed {
                state.installed = true
                install(&state)
            }
            state.tasks[task.address] = (task.id, owner)
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
    private static var currentTask: (address: UnsafeRawPointer, id: UInt64)? {
        withUnsafeCurrentTask { task in
            // A task is a job: the same object, so the runtime's job-id query answers for the task.
            task.map { task in
                (unsafeBitCast(task, to: UnsafeRawPointer.self), _jobTaskID(unsafeBitCast(task, to: UnownedJob.self)))
            }
        }
    }

    /// Lets go of every task `owner` took in (its loop is being freed).
    package static func releaseAll(owner: AnyObject) {
        let owner = ObjectIdentifier(owner)
        state.withLock { state in
            state.tasks = state.tasks.filter { $0.value.owner != owner }
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

    private static func install(_: inout State) {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook") else { return }
        let hook = symbol.assumingMemoryBound(to: Hook?.self)
        let before = hook.pointee.map { Int(bitPattern: unsafeBitCast($0, to: UnsafeRawPointer.self)) } ?? 0
        previous.store(before, ordering: .releasing)
        hook.pointee = { job, original in
            if _VirtualTimeTasks.count.load(ordering: .acquiring) > 0, _VirtualTimeTasks.takesIn(job) {
                _VirtualTimeTasks.runOnMainQueue(job)
            } else if let previous = UnsafeRawPointer(bitPattern: _VirtualTimeTasks.previous.load(ordering: .acquiring))
            {
                unsafeBitCast(previous, to: Hook.self)(job, original)
            } else {
                original(job)
            }
        }
    }

    /// Jobs of taken-in tasks enqueued on the main queue and not yet run.
    private static let pending = _Locked(0)

    /// Whether a job of a taken-in task waits on the main queue: `TestLoop`'s stepping is not quiet until none does.
    package static var hasPendingJobs: Bool { pending.withLock { $0 > 0 } }

    /// Runs `job` in a block of the main queue, as the main actor's executor: the same FIFO as `TestLoop`'s rounds
    /// (Swift's main-executor enqueues are a lane of their own that a dispatch block can overtake), and counted, so
    /// the stepping knows when it has run. Running as the main executor also keeps the task's hop back to main-actor
    /// code inline, instead of one more enqueue.
    private static func runOnMainQueue(_ job: UnownedJob) {
        pending.withLock { $0 += 1 }
        DispatchQueue.main.async {
            job.runSynchronously(on: MainActor.sharedUnownedExecutor)
            pending.withLock { $0 -= 1 }
        }
    }

    /// Whether `job` belongs to a taken-in task: a job of a task is the task itself, so its address is the task's;
    /// a matching address with another id is a freed task's, now reused, and its entry is dropped.
    private static func takesIn(_ job: UnownedJob) -> Bool {
        let address = unsafeBitCast(job, to: UnsafeRawPointer.self)
        return state.withLock { state in
            guard let entry = state.tasks[address] else { return false }
            if entry.id == _jobTaskID(job) { return true }
            state.tasks[address] = nil
            count.store(state.tasks.count, ordering: .releasing)
            return false
        }
    }
}

/// The id of `job`'s task (0 for a job that is not a task): the runtime's exported query, which the standard library
/// itself declares this way for `UnownedJob`'s description.
@_silgen_name("swift_task_getJobTaskId")
private func _jobTaskID(_ job: UnownedJob) -> UInt64
