extension EventLoop {
    /// The queue behind ``EventLoop/post(_:)`` and the executor's `enqueue`: any thread appends, the loop thread
    /// takes everything in one swap.
    ///
    /// All operations on `_Inbox` are thread-safe.
    ///
    /// Producers append under `lock` and wake the loop only on the empty → non-empty transition, so a flood costs
    /// one wake-up per batch the loop takes. Because every take empties `incoming`, the next append after a take
    /// always wakes. The loop drains with a budget, so it must wake *itself* while anything is still waiting
    /// (see `_Driver.asyncFired()`): producers will not.
    ///
    /// Life: `open` (posts and jobs accepted) → `draining` (after `stop()`: posts refused, executor jobs still
    /// accepted so that tasks already running on the loop can finish) → `closed` (nothing accepted; the loop
    /// closes its handles).
    ///
    /// With a limit on pending posts (``LoopBudgets/maxPendingPosts``) a post that would exceed it is refused and
    /// counted (see `_PostBound`); executor jobs are never refused for it — a task's job must run.
    final class _Inbox: @unchecked Sendable {
        // @unchecked Sendable: `incoming`, `state`, `bound` and `drainDeadline` are protected by `lock`; `waker` is
        // thread-safe.
        typealias Job = @Sendable () -> Void

        /// A job as the arrays hold it. As in the main loop's `_PostQueue.Slot`: a bare `Job?` element is stored at
        /// the generic abstraction level and costs a reabstraction-thunk `malloc` per append (measured: exactly one
        /// allocation per post, and 144 against 56 ns/post); the one-field struct keeps it concrete.
        struct Slot {
            /// The job; `nil` once it has been taken to run, or released at a drain deadline.
            var job: Job?
            /// Whether it is a posted closure (which a drain deadline may release) rather than an executor job
            /// (which must run, or its task would never resume).
            let isPost: Bool

            @inline(__always)
            init(_ job: @escaping Job, isPost: Bool) {
                self.job = job
                self.isPost = isPost
            }
        }

        private enum State {
            case open
            case draining
            case closed
        }

        private let lock = _Lock()
        private var incoming = ContiguousArray<Slot>()
        private var state = State.open
        private var bound: _PostBound
        private var drainDeadline: LoopInstant?
        private let waker: _Waker

        init(waker: _Waker, limit: Int?) {
            self.waker = waker
            bound = _PostBound(limit: limit)
        }

        /// Appends a posted closure while the inbox is open and below its limit.
        @inline(__always)
        func post(_ job: @escaping Job) -> PostResult {
            lock.lock()
            guard case .open = state else {
                lock.unlock()
                return .stopped
            }
            guard bound.admits(incoming: incoming.count) else {
                lock.unlock()
                return .full
            }
            appendAndUnlock(Slot(job, isPost: true))
            return .accepted
        }

        /// Appends an executor job unless the inbox is closed. Returns `false` (job not taken) once closed.
        @inline(__always)
        func enqueueJob(_ job: @escaping Job) -> Bool {
            lock.lock()
            if case .closed = state {
                lock.unlock()
                return false
            }
            appendAndUnlock(Slot(job, isPost: false))
            return true
        }

        @inline(__always)
        private func appendAndUnlock(_ slot: Slot) {
            incoming.append(slot)
            let wasEmpty = incoming.count == 1
            lock.unlock()
            // Outside the lock: a wake that arrives after the loop already took this job only costs one empty pass.
            if wasEmpty { waker.wake() }
        }

        /// Refuses posts from now on and wakes the loop so that it drains and shuts down. Returns `false` when the
        /// inbox was no longer open (a second `stop()`).
        ///
        /// - Parameter deadline: After it, posted closures still waiting are released unrun; `nil`: all run.
        func beginDraining(deadline: LoopInstant?) -> Bool {
            let began = lock.withLock {
                guard case .open = state else { return false }
                state = .draining
                drainDeadline = deadline
                return true
            }
            if began { waker.wake() }
            return began
        }

        /// Posts refused so far because the limit was reached.
        var rejectedCount: Int { lock.withLock { bound.rejected } }

        /// For a snapshot, under one lock: the jobs waiting to be taken, posts refused so far, and whether the inbox
        /// still accepts posts (`stop()` not called yet).
        var snapshotCounts: (waiting: Int, rejected: Int, isOpen: Bool) {
            lock.withLock { (incoming.count, bound.rejected, state == .open) }
        }

        /// The loop still holds `count` taken jobs that have not run (called after each post phase when bounded).
        func loopHolds(_ count: Int) {
            lock.withLock { bound.taken = count }
        }

        /// Releases every posted closure still waiting here (executor jobs stay); returns how many.
        func releasePosts() -> Int {
            // Released outside the lock: a closure's release may run arbitrary deinit code.
            var released = ContiguousArray<Slot>()
            let count = lock.withLock {
                let before = incoming.count
                var kept = ContiguousArray<Slot>()
                for slot in incoming {
                    if slot.isPost { released.append(slot) } else { kept.append(slot) }
                }
                incoming = kept
                return before - incoming.count
            }
            released.removeAll()
            return count
        }

        /// What the loop does after a drain pass.
        enum AfterDrain {
            /// Jobs are still waiting (in the loop's batch or here): the loop must wake itself, producers won't.
            /// While draining, carries the drain deadline.
            case moreWaiting(drainDeadline: LoopInstant?)
            /// Nothing is waiting and the inbox is open: the loop may block.
            case idle
            /// Nothing is waiting and the inbox was draining: it is now closed, the loop shuts down.
            case closed
        }

        /// Decides, under one lock, what follows a drain pass that left `batchIsDone` (the loop's taken batch has
        /// run completely) behind.
        func afterDrain(batchIsDone: Bool) -> AfterDrain {
            lock.withLock {
                guard batchIsDone, incoming.isEmpty else {
                    return .moreWaiting(drainDeadline: state == .draining ? drainDeadline : nil)
                }
                guard case .draining = state else { return .idle }
                state = .closed
                return .closed
            }
        }

        /// Swaps every waiting job into `batch`, which must be empty; `batch`'s old storage is kept for reuse.
        ///
        /// - Returns: The drain deadline while draining with one, else `nil`.
        func takeAll(into batch: inout ContiguousArray<Slot>) -> LoopInstant? {
            precondition(batch.isEmpty, "BUG DETECTED: the event loop's batch must be empty before the next take")
            return lock.withLock {
                swap(&incoming, &batch)
                if bound.isTracking { bound.taken = batch.count }
                return state == .draining ? drainDeadline : nil
            }
        }
    }
}
