import CLibUV
import CMainlineShims
import CoreMetrics
import MainlineLoopCore

extension EventLoop {
    /// What an ``EventLoop`` runs on the engine, on a thread of its own: posts and executor jobs, timers, idle bodies.
    ///
    /// Created on any thread; `scheduler`'s thread-safe parts, `queue`, `timers`, `idle`, `lifecycle`, `post` and
    /// `stop` are thread-safe; everything else is protected by the loop thread (touched only in the engine's callbacks
    /// and `run()`).
    ///
    /// It runs the scheduling core every loop runs (`_LoopScheduler`, as `_LoopCore` does for the main loop): one
    /// budget of the queue per post phase with the one drain-deadline rule — another thread's post wakes it through
    /// the async handle; what the budget leaves runs in the next iteration without a system call —, due timers in
    /// deadline order (ties in scheduling order), and before it blocks the idle phase and the decision whether it may.
    /// What differs from the main loop is what isolation forces, each written down where it is: timers scheduled from
    /// any thread (`_Timers`, under a lock), executor jobs in the queue, no settle phase, and shutdown over ordinary
    /// iterations (nothing to settle or hook).
    ///
    /// The driver does not reference its `EventLoop`, so a loop nobody holds can be freed, and its `deinit` stops the
    /// thread.
    final class _Driver: _UVEngineClient, @unchecked Sendable {
        // @unchecked Sendable: `engine` is written once in `init`; its loop-thread state and every `var` below are
        // touched only on the loop thread, which `pthread_create` starts after `init` (a happens-before edge).
        let name: String
        /// The scheduling core, the same as the main loop's.
        let scheduler: _LoopScheduler
        /// Posted closures and executor jobs (the scheduler's).
        let queue: _JobQueue
        let timers: _Timers
        /// Idle bodies (the scheduler's; thread-safe).
        let idle: _IdleQueue
        let lifecycle = _Locked(_Lifecycle())
        private let engine: _UVEngine
        /// `mainline_loop_posts_rejected{loop=<name>}`, through the process's metrics system (an `EventLoop` has no
        /// instrumentation of its own).
        private let rejections: Counter

        /// The engine's libuv loop, for handles of the loop's own owners (the inspector's sockets): use it on the loop
        /// thread only, and close those handles before the loop stops.
        var uvLoop: UnsafeMutablePointer<uv_loop_t> { engine.loop }

        /// The phase and counters a snapshot reports (the scheduler's; thread-safe).
        var progress: _LoopProgress { scheduler.progress }
        /// Posted closures released unrun at the drain deadline (final once the loop has stopped).
        var releasedAtDeadline: Int { progress.discarded }

        init(name: String, budgets: LoopBudgets, resources: _UVResources.Owner) {
            self.name = name
            rejections = Counter(label: LoopMetricName.postsRejected, dimensions: [("loop", name)])
            let discards = Counter(label: LoopMetricName.postsDiscarded, dimensions: [("loop", name)])
            let engine = _UVEngine(owner: resources)
            scheduler = _LoopScheduler(budgets: budgets, loopName: name)
            // `mainline_loop_posts_discarded{loop=<name>}`, reported by the scheduler's drain-deadline rule.
            scheduler.onDiscard = { discards.increment(by: Int64($0)) }
            let queue = scheduler.posts
            idle = scheduler.idle
            self.engine = engine
            self.queue = queue
            // A timer that becomes the earliest wakes the loop (through the queue's waker, which the loop removes
            // before closing the async handle), so that it re-arms.
            timers = _Timers(wake: { queue.wake() })
            engine.attach(self)
            // Another thread wakes the loop through the async handle; the loop's own posts need no wake-up: the driver
            // looks for waiting jobs before every poll.
            queue.installWaker(loopMark: _RunningLoop.eventLoopMark(identity)) { engine.wake() }
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
        func post(_ job: consuming @escaping @Sendable () -> Void, site: LoopSite) -> PostResult {
            let result = queue.enqueue(job, site: site).postResult
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
            _ = scheduler.runPosts(limit: scheduler.postsPerIteration, now: _MonotonicClock.now)
            switch scheduler.afterPosts(shutsDown: .whenDrained) {
            case .moreWaiting:
                // Producers wake only a loop that went to sleep: what the budget left, or what arrived behind this
                // snapshot, runs in the next iteration's post phase, which the loop requests itself.
                engine.requestPostPhase()
            case .idle:
                break
            case .closed:
                // `.whenDrained`, not the main loop's `.atClose` (which settles and runs hooks on the main actor as it
                // shuts down): executor jobs of tasks still running must keep arriving until none is left.
                beginShutdown()
            }
        }

        func engineRunTimers() {
            let now = _MonotonicClock.now()
            // Thread-safe timers where the main loop has main-actor ones: the heap is behind `_Timers`' lock, and each
            // body runs outside it.
            let fired = scheduler.runTimers(
                sequenceMark: timers.sequenceMark,
                popDue: { timers.popDue(now: now.nanoseconds, scheduledBefore: $0) },
                site: { $0.site },
                fire: { $0.run() }
            )
            // What the timers posted runs in this iteration's post phase (libuv's idle phase comes next): a post from
            // the loop's own thread does not wake it.
            if fired > 0, scheduler.hasPostsWaiting { engine.requestPostPhase() }
        }

        /// Wake-ups from other threads that reached the loop through the async handle. Read it on the loop thread.
        var asyncCallbacks: Int { engine.asyncCallbacks }

        /// Registers an idle body; wakes the loop when the registration comes from another thread. Thread-safe.
        func whenIdle(_ body: @escaping @Sendable () -> Void, site: LoopSite, fromLoop: Bool) -> IdleRegistration {
            let (registration, mustWake) = idle.add(.loopThread(body), site: site, wakes: !fromLoop)
            if mustWake { queue.wake() }
            return registration
        }

        /// libuv's prepare phase, right before it blocks: runs the idle phase when it is due, then arms the engine for
        /// the earliest deadline and for jobs still waiting.
        func enginePrepare() {
            guard !engine.isClosing else { return }
            // No settle phase: nothing else counts as other work.
            if scheduler.idlePhaseIsDue(
                otherWork: false,
                nextDeadline: timers.nextDeadline.map(LoopInstant.init(nanoseconds:)),
                now: _MonotonicClock.now()
            ) {
                _ = scheduler.runIdle { _, body in
                    guard case .loopThread(let body) = body else { return }
                    body()
                }
            }
            scheduler.willWait()
            // Posts made, or a stop requested, on the loop thread did not wake it: this is where they are seen. With
            // nothing waiting, the queue is told the loop sleeps, so that the next post wakes it.
            if scheduler.mustRunPostsBeforeBlocking() { engine.requestPostPhase() }
            engine.prepareToBlock(deadline: timers.nextDeadline, hasImmediateWork: false)
        }

        /// After the poll: the iteration is over (where the main loop's settle phase would run, then end it too).
        func engineCheck() {
            guard !engine.isClosing else { return }
            scheduler.endIteration()
        }

        /// Everything posted has run and the queue is closed: close every handle so that `uv_run` returns.
        private func beginShutdown() {
            scheduler.probe.stopping()
            // The loop will not be idle again: pending idle bodies are released unrun.
            idle.close()
            timers.close()
            // After this no thread can signal the async handle, so the engine may close and free it.
            queue.setWaker(nil)
            engine.beginClosing()
        }
    }
}
