import CLibUV
import CoreMetrics
import Logging

extension EventLoop {
    /// One libuv loop on a thread of its own, and the handles through which it runs posts, jobs and timers: the
    /// engine under ``EventLoop``.
    ///
    /// Created on any thread; `inbox`, `timers`, `lifecycle` and `wake` are thread-safe; everything else is
    /// protected by the loop thread (touched only in libuv callbacks and `run()`).
    ///
    /// How one `uv_run` iteration serves the loop:
    /// - **timers** — one `uv_timer_t`, armed for the earliest deadline, fires every due `Scheduled` in deadline
    ///   order (ties in scheduling order);
    /// - **posts and executor jobs** — the `uv_async_t` runs one budget (`postsPerIteration`) of the inbox and
    ///   signals itself while more is waiting, so a flood never starves timers and no wake-up is lost;
    /// - **idle** — when nothing is waiting and no timer is due, the `uv_prepare_t` runs the idle bodies
    ///   (`EventLoop.whenIdle(_:)`);
    /// - before blocking, the `uv_prepare_t` re-arms the uv timer for the earliest deadline.
    ///
    /// The async handle is the loop's keep-alive (the other handles are unreferenced): `uv_run` returns once
    /// shutdown closed it. The driver does not reference its `EventLoop`, so a loop nobody holds can be freed, and
    /// its `deinit` stops the thread.
    final class _Driver: @unchecked Sendable {
        // @unchecked Sendable: the pointers are written once in `init`; what they point to and every `var` below is
        // touched only on the loop thread, which `pthread_create` starts after `init` (a happens-before edge).
        let name: String
        let inbox: _Inbox
        let timers: _Timers
        /// Idle bodies (thread-safe).
        let idle = _IdleQueue()
        let lifecycle = _Locked(_Lifecycle())
        /// The phase and counters a snapshot reports (thread-safe; written by the loop thread once per phase).
        let progress = _Progress()
        private let waker: _Waker
        private let budgets: LoopBudgets
        /// `mainline_loop_posts_rejected{loop=<name>}` and `mainline_loop_posts_discarded{loop=<name>}`, through the
        /// process's metrics system (an `EventLoop` has no instrumentation of its own).
        private let rejections: Counter
        private let discards: Counter
        private let loop: UnsafeMutablePointer<uv_loop_t>
        private let async: UnsafeMutablePointer<uv_async_t>
        private let timer: UnsafeMutablePointer<uv_timer_t>
        private let prepare: UnsafeMutablePointer<uv_prepare_t>

        /// Jobs taken from the inbox and not yet run (protected by the loop thread).
        private var batch = ContiguousArray<_Inbox.Slot>()
        private var batchIndex = 0
        /// What the uv timer is armed for, in nanoseconds on the loop clock (protected by the loop thread).
        private var armedDeadline: Int64?
        /// Whether the handles are closing (protected by the loop thread).
        private var isShuttingDown = false
        /// While draining with a deadline: when posted closures stop running (protected by the loop thread).
        private var drainDeadline: LoopInstant?
        /// Posted closures released unrun at the drain deadline (final once the loop has stopped).
        var releasedAtDeadline: Int { progress.discarded }

        private static let logger = Logger(label: "mainline.loop")

        init(name: String, budgets: LoopBudgets) {
            self.name = name
            self.budgets = budgets
            rejections = Counter(label: LoopMetricName.postsRejected, dimensions: [("loop", name)])
            discards = Counter(label: LoopMetricName.postsDiscarded, dimensions: [("loop", name)])
            loop = _UVResources.allocateLoop(for: .eventLoop)
            Self.check(uv_loop_init(loop), "uv_loop_init")
            async = _UVResources.allocateHandle(uv_async_t.self, type: UV_ASYNC, for: .eventLoop)
            timer = _UVResources.allocateHandle(uv_timer_t.self, type: UV_TIMER, for: .eventLoop)
            prepare = _UVResources.allocateHandle(uv_prepare_t.self, type: UV_PREPARE, for: .eventLoop)
            Self.check(uv_async_init(loop, async, _mainlineEventLoopAsync), "uv_async_init")
            waker = _Waker(async)
            inbox = _Inbox(waker: waker, limit: budgets.maxPendingPosts)
            timers = _Timers(waker: waker)

            let context = identity
            async.pointee.data = context
            Self.check(uv_timer_init(loop, timer), "uv_timer_init")
            timer.pointee.data = context
            uv_unref(mainline_uv_handle(timer))
            Self.check(uv_prepare_init(loop, prepare), "uv_prepare_init")
            prepare.pointee.data = context
            Self.check(uv_prepare_start(prepare, _mainlineEventLoopPrepare), "uv_prepare_start")
            uv_unref(mainline_uv_handle(prepare))
        }

        /// What the loop thread's thread-local mark and every handle's `data` hold (unretained: `run()` keeps the
        /// driver alive while libuv can call back).
        var identity: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

        /// The loop clock: `uv_hrtime`, the monotonic clock `MainLoop` reads too.
        static func clockNow() -> LoopInstant {
            LoopInstant(nanoseconds: Int64(bitPattern: uv_hrtime()))
        }

        fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> _Driver {
            Unmanaged<_Driver>.fromOpaque(data!).takeUnretainedValue()
        }

        private static func check(_ result: Int32, _ call: StaticString) {
            precondition(result == 0, "\(call) failed: \(String(cString: uv_strerror(result)))")
        }

        /// Starts the loop thread. The thread holds the driver until it has closed the libuv loop.
        func start() {
            _Thread.start(name: name) { self.run() }
        }

        /// Refuses posts and cancels timers now; the loop thread drains what was posted (posted closures only until
        /// `deadline`, when one is given), then shuts down. Thread-safe and idempotent.
        func stop(deadline: LoopInstant? = nil) {
            guard inbox.beginDraining(deadline: deadline) else { return }
            timers.close()
        }

        /// Posts `job`; a refusal for the limit is counted in `mainline_loop_posts_rejected`. Thread-safe.
        @inline(__always)
        func post(_ job: @escaping @Sendable () -> Void) -> PostResult {
            let result = inbox.post(job)
            if case .full = result { rejections.increment() }
            return result
        }

        // MARK: Loop thread

        private func run() {
            _Thread.setCurrentLoop(identity)
            uv_run(loop, UV_RUN_DEFAULT)
            precondition(isShuttingDown, "BUG DETECTED: EventLoop '\(name)': uv_run returned before shutdown")
            let result = uv_loop_close(loop)
            if result == 0 {
                _UVResources.deallocateLoop(loop, for: .eventLoop)
            } else {
                // Freeing a loop libuv still uses would corrupt memory: leak it, and say so in debug builds.
                assertionFailure(
                    "BUG DETECTED: EventLoop '\(name)': uv_loop_close returned \(result): a handle is open"
                )
            }
            _Thread.setCurrentLoop(nil)
            let (waiters, blockedThreads) = lifecycle.withLock { $0.didStop(closeResult: result) }
            for waiter in waiters { waiter.resume() }
            for thread in blockedThreads { thread.signal() }
        }

        fileprivate func asyncFired() {
            progress.enter(.posts)
            runPosts()
            switch inbox.afterDrain(batchIsDone: batchIndex == batch.count) {
            case .moreWaiting(let deadline):
                drainDeadline = deadline
                // Producers wake the loop only on empty → non-empty: what the budget left, or what arrived behind
                // this snapshot, runs only if the loop wakes itself.
                uv_async_send(async)
            case .idle:
                break
            case .closed:
                beginShutdown()
            }
        }

        /// Runs at most one budget of posted closures and executor jobs, releasing each right after it ran.
        private func runPosts() {
            if batchIndex == batch.count {
                batch.removeAll(keepingCapacity: true)
                batchIndex = 0
                _BatchStorage.releaseExcess(of: &batch, budget: budgets.postsPerIteration)
                if let deadline = inbox.takeAll(into: &batch) { drainDeadline = deadline }
                progress.didTakeBatch(held: batch.count)
            }
            var ran = 0
            let budget = budgets.postsPerIteration
            while ran < budget && batchIndex < batch.count {
                // Draining with a deadline: a job starts only before it, as on the main loop (SerialLoop contract).
                if let deadline = drainDeadline, Self.clockNow() >= deadline { releasePostsAtDeadline() }
                // Not `Optional.take()`: it brings back the per-job allocation `Slot` avoids.
                let job = batch[batchIndex].job
                batch[batchIndex].job = nil
                batchIndex += 1
                // `nil`: a post released at the drain deadline.
                guard let job else { continue }
                job()
                ran += 1
            }
            progress.didRunPosts(ran, held: batch.count - batchIndex)
            // With a limit, producers count what the loop still holds as pending.
            if budgets.maxPendingPosts != nil { inbox.loopHolds(batch.count - batchIndex) }
        }

        /// The drain deadline passed: releases every posted closure not yet run, here and in the inbox (executor jobs
        /// still run), and reports how many.
        private func releasePostsAtDeadline() {
            drainDeadline = nil
            var released = 0
            for index in batchIndex..<batch.count where batch[index].isPost && batch[index].job != nil {
                batch[index].job = nil
                released += 1
            }
            released += inbox.releasePosts()
            guard released > 0 else { return }
            Self.logger.warning(
                "EventLoop stopped at its drain deadline with posted work still waiting; released it unrun",
                metadata: ["loop": "\(name)", "discarded": "\(released)"]
            )
            discards.increment(by: Int64(released))
            progress.didDiscard(released)
        }

        fileprivate func timerFired() {
            progress.enter(.timers)
            armedDeadline = nil
            let now = Self.clockNow().nanoseconds
            // Timers scheduled by this phase's callbacks wait for the next phase, even when already due.
            let mark = timers.sequenceMark
            var fired = 0
            while let firing = timers.popDue(now: now, scheduledBefore: mark) {
                firing.run()
                fired += 1
            }
            progress.didFireTimers(fired)
        }

        /// Registers an idle body; wakes the loop when the registration comes from another thread. Thread-safe.
        func whenIdle(_ body: @escaping @Sendable () -> Void, fromLoop: Bool) -> IdleRegistration {
            let (registration, mustWake) = idle.add(.loopThread(body), wakes: !fromLoop)
            if mustWake { waker.wake() }
            return registration
        }

        /// Arms the uv timer for the earliest deadline (libuv's prepare phase, right before it blocks), after running
        /// the idle bodies when nothing else is pending.
        fileprivate func prepareToWait() {
            guard !isShuttingDown else { return }
            runIdleIfNothingPending()
            progress.endIteration()
            let next = timers.nextDeadline
            guard next != armedDeadline else { return }
            armedDeadline = next
            guard let next else {
                uv_timer_stop(timer)
                return
            }
            uv_timer_start(timer, _mainlineEventLoopTimer, _UVClock.timeout(untilDeadline: next, on: loop), 0)
        }

        /// The idle phase: one atomic load when no idle body is registered.
        private func runIdleIfNothingPending() {
            guard idle.hasPending, batchIndex == batch.count else { return }
            let inbox = inbox.snapshotCounts
            guard inbox.waiting == 0, inbox.isOpen else { return }
            if let next = timers.nextDeadline, next <= Self.clockNow().nanoseconds { return }
            for registration in idle.takeAll() {
                // Taken one at a time: a body may cancel one registered after it.
                guard case .loopThread(let body) = idle.take(registration) else { continue }
                body()
            }
        }

        /// Everything posted has run and the inbox is closed: close every handle so that `uv_run` returns.
        private func beginShutdown() {
            progress.enter(.stopping)
            isShuttingDown = true
            // The loop will not be idle again: pending idle bodies are released unrun.
            idle.close()
            timers.close()
            // After this no thread can signal the async handle, so it may be closed and freed.
            waker.disconnect()
            _UVResources.close(async, for: .eventLoop)
            _UVResources.close(timer, for: .eventLoop)
            _UVResources.close(prepare, for: .eventLoop)
        }
    }
}

// libuv calls plain C function pointers: nonisolated top-level functions, the driver in `handle->data`.

private func _mainlineEventLoopAsync(_ handle: UnsafeMutablePointer<uv_async_t>?) {
    EventLoop._Driver.from(handle?.pointee.data).asyncFired()
}

private func _mainlineEventLoopTimer(_ handle: UnsafeMutablePointer<uv_timer_t>?) {
    EventLoop._Driver.from(handle?.pointee.data).timerFired()
}

private func _mainlineEventLoopPrepare(_ handle: UnsafeMutablePointer<uv_prepare_t>?) {
    EventLoop._Driver.from(handle?.pointee.data).prepareToWait()
}
