import CLibUV
import CMainlineShims
import CoreMetrics
import Logging

extension EventLoop {
    /// What an ``EventLoop`` runs on the engine, on a thread of its own: posts and executor jobs, timers, idle bodies.
    ///
    /// Created on any thread; `queue`, `timers`, `idle`, `lifecycle`, `progress`, `post` and `stop` are thread-safe;
    /// everything else is protected by the loop thread (touched only in the engine's callbacks and `run()`).
    ///
    /// The engine (`_UVEngine`) runs one budget (`postsPerIteration`) of the queue per post phase — another thread's
    /// post wakes it through the async handle; what the budget leaves runs in the next iteration without a system call —,
    /// fires due timers in deadline order (ties in scheduling order), and before it blocks the driver runs the idle
    /// bodies (`EventLoop.whenIdle(_:)`) when nothing else is pending and re-arms the engine's timer.
    ///
    /// The driver does not reference its `EventLoop`, so a loop nobody holds can be freed, and its `deinit` stops the
    /// thread.
    final class _Driver: _UVEngineClient, @unchecked Sendable {
        // @unchecked Sendable: `engine` is written once in `init`; its loop-thread state and every `var` below are
        // touched only on the loop thread, which `pthread_create` starts after `init` (a happens-before edge).
        let name: String
        let queue: _JobQueue
        let timers: _Timers
        /// Idle bodies (thread-safe).
        let idle = _IdleQueue()
        let lifecycle = _Locked(_Lifecycle())
        /// The phase and counters a snapshot reports (thread-safe; written by the loop thread once per phase).
        let progress = _Progress()
        private let engine: _UVEngine
        private let budgets: LoopBudgets
        /// `mainline_loop_posts_rejected{loop=<name>}` and `mainline_loop_posts_discarded{loop=<name>}`, through the
        /// process's metrics system (an `EventLoop` has no instrumentation of its own).
        private let rejections: Counter
        private let discards: Counter

        /// While draining with a deadline: when posted closures stop running (protected by the loop thread).
        // @exclusivity(unchecked): read before every job; touched only on the loop thread, never from a nested access.
        @exclusivity(unchecked) private var drainDeadline: LoopInstant?
        /// Posted closures released unrun at the drain deadline (final once the loop has stopped).
        var releasedAtDeadline: Int { progress.discarded }

        private static let logger = Logger(label: "mainline.loop")

        init(name: String, budgets: LoopBudgets) {
            self.name = name
            self.budgets = budgets
            rejections = Counter(label: LoopMetricName.postsRejected, dimensions: [("loop", name)])
            discards = Counter(label: LoopMetricName.postsDiscarded, dimensions: [("loop", name)])
            let engine = _UVEngine(owner: .eventLoop)
            let queue = _JobQueue(limit: budgets.maxPendingPosts)
            self.engine = engine
            self.queue = queue
            // A timer that becomes the earliest wakes the loop (through the queue's waker, which the loop removes
            // before closing the async handle), so that it re-arms.
            timers = _Timers(wake: { queue.wake() })
            engine.attach(self)
            // Another thread wakes the loop through the async handle; the loop's own posts need no wake-up: the driver
            // looks for waiting jobs before every poll.
            let mark = _RunningLoop.eventLoopMark(identity)
            queue.setWaker {
                if !_RunningLoop.isRunning(identity: mark) { engine.wake() }
            }
        }

        /// What the loop thread's running-loop mark (`_RunningLoop`) holds while it runs (unretained: `run()` keeps
        /// the driver alive while libuv can call back).
        var identity: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

        /// Starts the loop thread. The thread holds the driver until it has closed the libuv loop.
        func start() {
            _Thread.start(name: name) { self.run() }
        }

        /// Refuses posts and cancels timers now; the loop thread drains what was posted (posted closures only until
        /// `deadline`, when one is given), then shuts down. Thread-safe and idempotent.
        func stop(deadline: LoopInstant? = nil) {
            guard queue.close(drainDeadline: deadline.map { .at($0) }) else { return }
            timers.close()
        }

        /// Posts `job`; a refusal for the limit is counted in `mainline_loop_posts_rejected`. Thread-safe.
        @inline(__always)
        func post(_ job: consuming @escaping @Sendable () -> Void) -> PostResult {
            let result = queue.enqueue(job).postResult
            if case .full = result { rejections.increment() }
            return result
        }

        // MARK: Loop thread

        private func run() {
            let mark = UnsafeRawPointer(bitPattern: _RunningLoop.eventLoopMark(identity))
            let previous = mainline_exchange_running_loop(mark)
            engine.run(UV_RUN_DEFAULT)
            precondition(engine.isClosing, "BUG DETECTED: EventLoop '\(name)': uv_run returned before shutdown")
            let result = engine.closeLoop()
            if result != 0 {
                // The engine leaked the loop rather than free one libuv still uses; say so in debug builds.
                assertionFailure(
                    "BUG DETECTED: EventLoop '\(name)': uv_loop_close returned \(result): a handle is open"
                )
            }
            _ = mainline_exchange_running_loop(previous)
            let waiters = lifecycle.withLock { $0.didStop(closeResult: result) }
            for waiter in waiters { waiter.resume() }
        }

        func engineRunPostPhase() {
            progress.enter(.posts)
            runPosts()
            switch queue.afterPhase() {
            case .moreWaiting:
                // Producers wake only a loop that went to sleep: what the budget left, or what arrived behind this
                // snapshot, runs in the next iteration's post phase, which the loop requests itself.
                engine.requestPostPhase()
            case .idle:
                break
            case .closed:
                beginShutdown()
            }
        }

        /// Runs at most one budget of posted closures and executor jobs, releasing each right after it ran.
        private func runPosts() {
            if case .at(let deadline) = queue.refillIfDone() {
                drainDeadline = deadline
            }
            var ran = 0
            let budget = budgets.postsPerIteration
            while ran < budget {
                // Draining with a deadline: a job starts only before it, as on the main loop (SerialLoop contract).
                if let deadline = drainDeadline, _UVClock.now() >= deadline { releasePostsAtDeadline() }
                guard let job = queue.next() else { break }
                job()
                ran += 1
            }
            progress.didRunPosts(ran)
        }

        /// The drain deadline passed: releases every posted closure not yet run, here and in the queue (executor jobs
        /// still run), and reports how many.
        private func releasePostsAtDeadline() {
            drainDeadline = nil
            let released = queue.releasePostsUnrun()
            guard released > 0 else { return }
            Self.logger.warning(
                "EventLoop stopped at its drain deadline with posted work still waiting; released it unrun",
                metadata: ["loop": "\(name)", "discarded": "\(released)"]
            )
            discards.increment(by: Int64(released))
            progress.didDiscard(released)
        }

        func engineRunTimers() {
            progress.enter(.timers)
            let now = _UVClock.now().nanoseconds
            // Timers scheduled by this phase's callbacks wait for the next phase, even when already due.
            let mark = timers.sequenceMark
            var fired = 0
            while let firing = timers.popDue(now: now, scheduledBefore: mark) {
                firing.run()
                fired += 1
            }
            progress.didFireTimers(fired)
            // What the timers posted runs in this iteration's post phase (libuv's idle phase comes next): a post from
            // the loop's own thread does not wake it.
            if fired > 0, queue.hasIncoming { engine.requestPostPhase() }
        }

        /// Wake-ups from other threads that reached the loop through the async handle. Read it on the loop thread.
        var asyncCallbacks: Int { engine.asyncCallbacks }

        /// Registers an idle body; wakes the loop when the registration comes from another thread. Thread-safe.
        func whenIdle(_ body: @escaping @Sendable () -> Void, fromLoop: Bool) -> IdleRegistration {
            let (registration, mustWake) = idle.add(.loopThread(body), wakes: !fromLoop)
            if mustWake { queue.wake() }
            return registration
        }

        /// libuv's prepare phase, right before it blocks: runs the idle bodies when nothing else is pending, then arms
        /// the engine for the earliest deadline and for jobs still waiting.
        func enginePrepare() {
            guard !engine.isClosing else { return }
            runIdleIfNothingPending()
            progress.endIteration()
            // Posts made, or a stop requested, on the loop thread did not wake it: this is where they are seen. With
            // nothing waiting, the queue is told the loop sleeps, so that the next post wakes it.
            if queue.closed || !queue.prepareToSleep() { engine.requestPostPhase() }
            engine.prepareToBlock(deadline: timers.nextDeadline, hasImmediateWork: false)
        }

        func engineCheck() {}

        /// The idle phase: one atomic load when no idle body is registered.
        private func runIdleIfNothingPending() {
            guard idle.hasPending, !queue.needsPostPhase else { return }
            if let next = timers.nextDeadline, next <= _UVClock.now().nanoseconds { return }
            for registration in idle.takeAll() {
                // Taken one at a time: a body may cancel one registered after it.
                guard case .loopThread(let body) = idle.take(registration) else { continue }
                body()
            }
        }

        /// Everything posted has run and the queue is closed: close every handle so that `uv_run` returns.
        private func beginShutdown() {
            progress.enter(.stopping)
            // The loop will not be idle again: pending idle bodies are released unrun.
            idle.close()
            timers.close()
            // After this no thread can signal the async handle, so the engine may close and free it.
            queue.setWaker(nil)
            engine.beginClosing()
        }
    }
}
