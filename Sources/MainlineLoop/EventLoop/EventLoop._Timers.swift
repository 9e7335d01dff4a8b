extension EventLoop {
    /// The timers of one event loop: scheduled and cancelled from any thread, fired on the loop thread.
    ///
    /// All operations on `_Timers` are thread-safe.
    ///
    /// The heap and every `Scheduled`'s state are protected by `lock`. Callbacks never run under it: the loop thread
    /// takes a due task's body out under the lock and runs it outside, so a callback may schedule, cancel (itself
    /// too) and read its task freely. Bodies released by `cancel()` or `close()` are also dropped outside the lock,
    /// because what they captured may deinitialize into code that schedules again.
    final class _Timers: @unchecked Sendable {
        // @unchecked Sendable: `heap`, `isClosed` and every `Scheduled`'s `var`s are protected by `lock`.
        private let lock = _Lock()
        private var heap = _TimerHeap()
        private var isClosed = false
        private let waker: _Waker

        init(waker: _Waker) {
            self.waker = waker
        }

        func withLock<T>(_ body: () -> T) -> T {
            lock.withLock(body)
        }

        /// Inserts a task due at `deadline`; wakes the loop when it becomes the earliest, so the loop re-arms its uv
        /// timer. After ``close()`` the task comes back already cancelled and `body` is released.
        ///
        /// - Complexity: O(log n).
        func schedule(deadline: Int64, interval: Duration?, body: Scheduled.Body) -> Scheduled {
            let task = Scheduled(timers: self, deadline: deadline, interval: interval)
            let becameEarliest: Bool = lock.withLock {
                guard !isClosed else {
                    task.state = .cancelled
                    return false
                }
                task.body = body
                let previous = heap.nextDeadline()
                heap.insert(task)
                return previous.map { deadline < $0 } ?? true
            }
            if becameEarliest { waker.wake() }
            return task
        }

        /// Cancels `task` if it is still scheduled.
        func cancel(_ task: Scheduled) {
            let released: Scheduled.Body? = lock.withLock {
                guard task.state == .scheduled else { return nil }
                task.state = .cancelled
                defer { task.body = nil }
                heap.didCancel()
                return task.body
            }
            _ = consume released  // the body is released here, outside the lock
        }

        /// The sequence number the next scheduled task will get (see `popDue`).
        var sequenceMark: UInt64 { lock.withLock { heap.sequenceMark } }

        /// The earliest deadline of a live task, in nanoseconds on the loop clock.
        var nextDeadline: Int64? { lock.withLock { heap.nextDeadline() } }

        /// Takes the earliest task due at `now` that was scheduled before `mark`, and marks it fired (a one-shot
        /// task) or moves it to its next deadline (a repeating task, re-inserted before its body runs so that
        /// `cancel()` from inside the body finds it scheduled). Returns what to run, outside the lock.
        ///
        /// - Complexity: O(log n).
        func popDue(now: Int64, scheduledBefore mark: UInt64) -> _Firing? {
            lock.withLock {
                guard let task = heap.popDue(now: now, insertedBefore: mark) else { return nil }
                task.firingCount += 1
                switch task.body {
                case .once(let body):
                    task.state = .fired
                    task.body = nil
                    return .once(body)
                case .repeating(let body):
                    let interval = task.interval!.mainlineNanoseconds
                    let (sum, overflow) = task.nanosecondDeadline.addingReportingOverflow(interval)
                    var next = overflow ? Int64.max : sum
                    if next <= now {
                        let missed = (now - next) / interval + 1
                        task.skippedFiringCount += Int(missed)
                        next &+= missed &* interval
                    }
                    task.nanosecondDeadline = next
                    heap.insert(task)
                    return .repeating(body, task)
                case nil:
                    preconditionFailure("BUG DETECTED: a scheduled EventLoop timer has no body (state \(task.state))")
                }
            }
        }

        /// Cancels every task and refuses new ones from now on (the loop is stopping). Idempotent.
        func close() {
            let released: [Scheduled.Body] = lock.withLock {
                isClosed = true
                return heap.removeAll().compactMap { task in
                    task.state = .cancelled
                    defer { task.body = nil }
                    return task.body
                }
            }
            _ = consume released  // bodies are released here, outside the lock
        }
    }

    /// One firing of a timer, taken out of the heap under the lock and run outside it.
    enum _Firing {
        case once(@Sendable () -> Void)
        case repeating(@Sendable (Scheduled) -> Void, Scheduled)

        func run() {
            switch self {
            case .once(let body): body()
            case .repeating(let body, let task): body(task)
            }
        }
    }
}
