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
/// one; it stays in until its loop is freed (a task that finished leaves only an address behind, and the worst a
/// reused address does is run another task's global jobs on the main actor until then).
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
        /// Task address → the loop (clock source) that took it in.
        var tasks: [UnsafeRawPointer: ObjectIdentifier] = [:]
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
        guard let task = withUnsafeCurrentTask(body: { $0.map { unsafeBitCast($0, to: UnsafeRawPointer.self) } })
        else { return }
        let owner = ObjectIdentifier(owner)
        state.withLock { state in
            if !state.installed {
                state.installed = true
                install(&state)
            }
            state.tasks[task] = owner
            count.store(state.tasks.count, ordering: .releasing)
        }
    }

    /// Lets go of every task `owner` took in (its loop is being freed).
    package static func releaseAll(owner: AnyObject) {
        let owner = ObjectIdentifier(owner)
        state.withLock { state in
            state.tasks = state.tasks.filter { $0.value != owner }
            count.store(state.tasks.count, ordering: .releasing)
        }
    }

    /// Whether the current task has been taken in (for the package's tests).
    package static var isCurrentTaskAdopted: Bool {
        guard let task = withUnsafeCurrentTask(body: { $0.map { unsafeBitCast($0, to: UnsafeRawPointer.self) } })
        else { return false }
        return state.withLock { $0.tasks[task] != nil }
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

    private static func takesIn(_ job: UnownedJob) -> Bool {
        let address = unsafeBitCast(job, to: UnsafeRawPointer.self)
        return state.withLock { $0.tasks[address] != nil }
    }
}
