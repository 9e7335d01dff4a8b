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
    final class _Inbox: @unchecked Sendable {
        // @unchecked Sendable: `incoming` and `state` are protected by `lock`; `waker` is thread-safe.
        typealias Job = @Sendable () -> Void

        /// A job as the arrays hold it. As in the main loop's `_PostQueue.Slot`: a bare `Job?` element is stored at
        /// the generic abstraction level and costs a reabstraction-thunk `malloc` per append (measured: exactly one
        /// allocation per post, and 144 against 56 ns/post); the one-field struct keeps it concrete.
        struct Slot {
            /// The job; `nil` once it has been taken to run.
            var job: Job?

            @inline(__always)
            init(_ job: @escaping Job) { self.job = job }
        }

        private enum State {
            case open
            case draining
            case closed
        }

        private let lock = _Lock()
        private var incoming = ContiguousArray<Slot>()
        private var state = State.open
        private let waker: _Waker

        init(waker: _Waker) {
            self.waker = waker
        }

        /// Appends a posted closure while the inbox is open. Returns `false` (job not taken) once draining.
        @inline(__always)
        func post(_ job: @escaping Job) -> Bool {
            append(job, acceptWhileDraining: false)
        }

        /// Appends an executor job unless the inbox is closed. Returns `false` (job not taken) once closed.
        @inline(__always)
        func enqueueJob(_ job: @escaping Job) -> Bool {
            append(job, acceptWhileDraining: true)
        }

        private func append(_ job: @escaping Job, acceptWhileDraining: Bool) -> Bool {
            lock.lock()
            switch state {
            case .open:
                break
            case .draining where acceptWhileDraining:
                break
            case .draining, .closed:
                lock.unlock()
                return false
            }
            incoming.append(Slot(job))
            let wasEmpty = incoming.count == 1
            lock.unlock()
            // Outside the lock: a wake that arrives after the loop already took this job only costs one empty pass.
            if wasEmpty { waker.wake() }
            return true
        }

        /// Refuses posts from now on and wakes the loop so that it drains and shuts down. Returns `false` when the
        /// inbox was no longer open (a second `stop()`).
        func beginDraining() -> Bool {
            let began = lock.withLock {
                guard case .open = state else { return false }
                state = .draining
                return true
            }
            if began { waker.wake() }
            return began
        }

        /// What the loop does after a drain pass.
        enum AfterDrain {
            /// Jobs are still waiting (in the loop's batch or here): the loop must wake itself, producers won't.
            case moreWaiting
            /// Nothing is waiting and the inbox is open: the loop may block.
            case idle
            /// Nothing is waiting and the inbox was draining: it is now closed, the loop shuts down.
            case closed
        }

        /// Decides, under one lock, what follows a drain pass that left `batchIsDone` (the loop's taken batch has
        /// run completely) behind.
        func afterDrain(batchIsDone: Bool) -> AfterDrain {
            lock.withLock {
                guard batchIsDone, incoming.isEmpty else { return .moreWaiting }
                guard case .draining = state else { return .idle }
                state = .closed
                return .closed
            }
        }

        /// Swaps every waiting job into `batch`, which must be empty; `batch`'s old storage is kept for reuse.
        func takeAll(into batch: inout ContiguousArray<Slot>) {
            precondition(batch.isEmpty, "BUG DETECTED: the event loop's batch must be empty before the next take")
            lock.withLock { swap(&incoming, &batch) }
        }
    }
}
