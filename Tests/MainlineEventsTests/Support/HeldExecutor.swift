import Dispatch
import MainlineLoop

/// A task executor that can be held: while held, the jobs enqueued on it (tasks resumed by a continuation, say) are
/// kept instead of run, so a test can show that something happened *without* those tasks running. Released, it runs
/// them, and everything after, in order on one serial queue.
///
/// All operations on `HeldExecutor` are thread-safe.
final class HeldExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "HeldExecutor")
    private let state = _Locked((held: false, jobs: [UnownedJob]()))

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let run = state.withLock { state in
            guard state.held else { return true }
            state.jobs.append(job)
            return false
        }
        if run { queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) } }
    }

    /// From now on, jobs wait until ``release()``; returns once the job running now (if any) has finished, so that
    /// every task on this executor is suspended or held.
    func hold() async {
        state.withLock { $0.held = true }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
    }

    /// How many jobs wait for ``release()``.
    var heldJobs: Int { state.withLock { $0.jobs.count } }

    /// Runs the held jobs, in the order they arrived, and every job after them at once.
    func release() {
        let jobs = state.withLock { state in
            state.held = false
            defer { state.jobs = [] }
            return state.jobs
        }
        for job in jobs { queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) } }
    }
}

/// Lets a test wait, without polling, until a number of senders wait in a `.suspend` mailbox: the mailbox's
/// `didStartWaiting` hook reports each new waiter here.
///
/// All operations on `WaitingSenders` are thread-safe.
final class WaitingSenders: Sendable {
    private let state = _Locked((count: 0, waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)]()))

    /// The hook to install: called with the number of senders waiting each time one starts waiting.
    func didStartWaiting(_ count: Int) {
        let ready = state.withLock { state in
            state.count = count
            let ready = state.waiters.filter { $0.count <= count }
            state.waiters.removeAll { $0.count <= count }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Returns once `count` senders have been seen waiting at once.
    func until(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                guard state.count < count else { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
