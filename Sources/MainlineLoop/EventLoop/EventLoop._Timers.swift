import MainlineLoopCore

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
        private var heap = _DeadlineHeap<Scheduled>()
        private var isClosed = false
        /// Wakes the loop so that it re-arms (the job queue's wake-up: it does nothing once the loop is shutting down).
        private let wake: @Sendable () -> Void

        init(wake: @escaping @Sendable () -> Void) {
            self.wake = wake
        }

        func withLock<T>(_ body: () -> T) -> T {
            lock.withLock(body)
        }

        /// Inserts a task due at `deadline`; wakes the loop when it becomes the earliest, so the loop re-arms its uv
        /// timer. After ``close()`` the task comes back already cancelled and `body` is released.
        ///
        /// - Complexity: O(log n).
        func schedule(deadline: Int64, interval: Duration?, site: LoopSite, body: Scheduled.Body) -> Scheduled {
            let task = Scheduled(timers: self, deadline: deadline, interval: interval, site: site)
            let becameEarliest: Bool = lock.withLock {
                guard !isClosed else {
                    _ = task.state.cancel()
                    return false
                }
                task.body = body
                let (sequence, isEarliest) = heap.insert(task, deadline: deadline)
                task.sequence = sequence
                return isEarliest
            }
            if becameEarliest { wake() }
            return task
        }

        /// Cancels `task` if it is still scheduled.
        func cancel(_ task: Scheduled) {
            let released: Scheduled.Body? = lock.withLock {
                guard task.state.cancel() else { return nil }
                defer { task.body = nil }
                heap.didCancel(isLive: Self.isLive, discard: Self.discard)
                return task.body
            }
            _ = consume released  // the body is released here, outside the lock
        }

        /// The sequence number the next scheduled task will get (see `popDue`).
        var sequenceMark: UInt64 { lock.withLock { heap.sequenceMark } }

        /// The earliest deadline of a live task, in nanoseconds on the loop clock.
        var nextDeadline: Int64? { lock.withLock { heap.nextDeadline(isLive: Self.isLive, discard: Self.discard) } }

        /// Takes the earliest task due at `now` that was scheduled before `mark`, and marks it fired (a one-shot
        /// task) or moves it to its next deadline (a repeating task, re-inserted before its body runs so that
        /// `cancel()` from inside the body finds it scheduled). Returns what to run, outside the lock.
        ///
        /// - Complexity: O(log n).
        func popDue(now: Int64, scheduledBefore mark: UInt64) -> _Firing? {
            lock.withLock {
                guard
                    let task = heap.popDue(now: now, insertedBefore: mark, isLive: Self.isLive, discard: Self.discard)
                else { return nil }
                // Always wins: the heap hands out live tasks only, and `cancel` takes this same lock.
                guard task.state.commitFiring(repeating: task.interval != nil) else {
                    preconditionFailure("BUG DETECTED: a cancelled EventLoop timer was popped as due (\(task.state))")
                }
                task.firingCount += 1
                switch task.body {
                case .once(let body):
                    task.body = nil
                    return .once(body, task.site)
                case .repeating(let body):
                    let (next, skipped) = _nextFixedRateDeadline(
                        after: task.nanosecondDeadline,
                        interval: task.interval!.mainlineNanoseconds,
                        now: now
                    )
                    task.skippedFiringCount += skipped
                    task.nanosecondDeadline = next
                    task.sequence = heap.insert(task, deadline: next).sequence
                    return .repeating(body, task)
                case nil:
                    preconditionFailure("BUG DETECTED: a scheduled EventLoop timer has no body (state \(task.state))")
                }
            }
        }

        /// The scheduled timers in firing order, for a snapshot.
        ///
        /// - Complexity: O(n log n), under the lock.
        func snapshot() -> [LoopSnapshot.Timer] {
            lock.withLock {
                heap.liveTimersInFiringOrder(isLive: Self.isLive).map { entry in
                    LoopSnapshot.Timer(
                        label: entry.timer.site.label,
                        site: entry.timer.site,
                        deadline: LoopInstant(nanoseconds: entry.deadline),
                        interval: entry.timer.interval,
                        firings: entry.timer.firingCount,
                        skippedFirings: entry.timer.skippedFiringCount
                    )
                }
            }
        }

        // Liveness and disposal for the shared heap: a task is live while scheduled; the heap holds plain strong
        // references, so a dead one needs nothing done when the heap lets go of it. Called under `lock`.
        private static func isLive(_ task: Scheduled) -> Bool { task.isInHeap }
        private static func discard(_ task: Scheduled) {}

        /// Cancels every task and refuses new ones from now on (the loop is stopping). Idempotent.
        func close() {
            let released: [Scheduled.Body] = lock.withLock {
                isClosed = true
                return heap.removeAll().filter(\.isInHeap).compactMap { task in
                    _ = task.state.cancel()
                    defer { task.body = nil }
                    return task.body
                }
            }
            _ = consume released  // bodies are released here, outside the lock
        }
    }

    /// One firing of a timer, taken out of the heap under the lock and run outside it.
    enum _Firing {
        case once(@Sendable () -> Void, LoopSite)
        case repeating(@Sendable (Scheduled) -> Void, Scheduled)

        /// Where the timer was scheduled.
        var site: LoopSite {
            switch self {
            case .once(_, let site): site
            case .repeating(_, let task): task.site
            }
        }

        func run() {
            switch self {
            case .once(let body, _): body()
            case .repeating(let body, let task): body(task)
            }
        }
    }
}
