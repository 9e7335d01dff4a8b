import MainlineLoopCore

/// A loop with virtual time, for deterministic tests: nothing happens until the test steps it.
///
/// `TestLoop` is **not** thread-safe: it must be used on the main actor, except ``post(_:fileID:line:)``, ``whenIdle(_:fileID:line:)``,
/// ``raise(_:)``, ``stop()`` and ``propagatesServiceContext``, which any thread may call (what they ask for waits until the test
/// steps the loop).
///
/// It runs the same scheduling core as `MainLoop` — the same timer ordering, post budget and settle rounds —
/// but time starts at `LoopInstant.zero` and moves only when the test says so:
///
/// - ``runIteration()`` runs one iteration at the current time: due timers, one budget of posts, settle, and — if
///   nothing is left due now — idle bodies (``whenIdle(_:fileID:line:)``).
/// - `runUntilIdle(maxIterations:)` runs iterations until nothing is left to do *now*.
/// - `advance(by:)` / `advance(to:)` run everything due up to a time, setting ``now`` to each timer's
///   deadline as it fires, and leave ``now`` at the target. Time never moves backwards.
/// - ``simulateBusy(for:)`` moves time without running anything, as a long callback would on a real loop.
/// - In `async` code, `await loop.advance(by:)`, `advance(to:)` and `runUntilIdle()` also wait for the tasks a step
///   wakes — tasks sleeping on ``clock``, awaiting a post or an event — to run until they wait on the loop again
///   (see the article "Virtual time for async code").
///
/// ```swift
/// @MainActor @Test func debouncedSaveRunsOnceAfterTheLastEdit() {
///     let loop = TestLoop()
///     let editor = Editor(loop: loop)       // schedules its save with loop.schedule(after: .seconds(1))
///     editor.type("a")
///     loop.advance(by: .milliseconds(500))
///     editor.type("b")
///     loop.advance(by: .milliseconds(999))
///     #expect(editor.saves == 0)
///     loop.advance(by: .milliseconds(1))
///     #expect(editor.saves == 1)
///     #expect(!loop.hasPendingWork)
/// }
/// ```
@MainActor
public final class TestLoop: Loop {
    /// The scheduling core (for the package's other layers).
    package nonisolated let core: _LoopCore

    /// The loop's virtual clock. Inside a timer callback it is that timer's deadline.
    public private(set) var now: LoopInstant {
        didSet { sharedNow.withLock { $0 = now } }
    }

    /// ``now``, readable from any thread, for ``clock``.
    nonisolated let sharedNow: _Locked<LoopInstant>

    /// How many posts the loop's own callbacks made since stepping last reset it: how the stepping tells work the loop
    /// keeps giving itself from work that arrives from other threads (see `TestLoop+Stepping.swift`).
    // nonisolated(unsafe): written only by a post made inside a phase of this loop — on the main actor, inside a step
    // (`_RunningLoop.isRunning` says so) — and read and reset by the stepping, on the main actor between iterations.
    nonisolated(unsafe) var postsFromOwnCallbacks = 0

    /// Creates a test loop whose clock reads `now`. Callable from any thread.
    ///
    /// Inside `explore(seeds:strategy:checksDeterminism:sourceLocation:_:)`, the loop takes the schedule of the run
    /// (as `init(schedule:now:budgets:)` does), so that a test's loops — a fixture's too — are explored unchanged.
    ///
    /// - Parameters:
    ///   - now: The starting time; `LoopInstant.zero` unless a test needs another.
    ///   - budgets: The per-iteration budgets, so tests can exercise budget boundaries with small numbers.
    public nonisolated convenience init(now: LoopInstant = .zero, budgets: LoopBudgets = .default) {
        self.init(now: now, budgets: budgets, order: TestSchedule.exploring.map(_TestLoopOrder.init))
    }

    /// The order the core asks where several items are ready; `nil` for the real loop's (see `TestLoop+Schedule.swift`).
    nonisolated let order: _TestLoopOrder?

    /// Creates a test loop whose core asks `order` which ready item runs next (`nil`: the real loop's order).
    /// Callable from any thread.
    nonisolated init(now: LoopInstant, budgets: LoopBudgets, order: _TestLoopOrder?) {
        self.now = now
        self.order = order
        let sharedNow = _Locked(now)
        self.sharedNow = sharedNow
        // The flight recorder keeps virtual time too: a job that `simulateBusy(for:)` says took 5 ms is 5 ms slow.
        core = _LoopCore(budgets: budgets, loopName: "TestLoop") {
            UInt64(bitPattern: sharedNow.withLock { $0.nanoseconds })
        }
        core.owner = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        core.scheduler.order = order
        // Virtual time: instrumentation measures what `simulateBusy(for:)` says a callback took.
        core.clock = { [unowned self] in self.now }
    }

    deinit {
        _VirtualTimeTasks.releaseAll(owner: self)
    }

    /// Counts a post made by one of this loop's own callbacks (a job, timer, settle notification or idle body that
    /// posts); a post from any other thread or task is not counted. Thread-safe.
    @inline(__always)
    private nonisolated func noteIfPostedByOwnCallback() {
        if _RunningLoop.isRunning(self) { postsFromOwnCallbacks &+= 1 }
    }

    // MARK: Any thread

    /// The loop's virtual time as a Swift `Clock`. Thread-safe.
    ///
    /// Its `LoopClock.now` is ``now``; a task sleeping on it (`Task.sleep(for:clock:)`, `clock.sleep(for:)`)
    /// resumes when `advance(by:)` or `advance(to:)` reaches its deadline, never in real time. From a test, step
    /// with the `async` forms (`await loop.advance(by:)`), which also wait for the woken tasks to run until they wait
    /// on the loop again — see <doc:VirtualTimeForAsyncCode>.
    public nonisolated var clock: LoopClock {
        let sharedNow = self.sharedNow
        return LoopClock(
            source: _MainActorLoopClockSource(
                loop: self,
                now: { sharedNow.withLock { $0 } },
                resolution: .nanoseconds(1),
                virtual: true,
                lane: order?.schedule.lane
            )
        )
    }

    /// Queues `body` to run on the loop at the next step. Thread-safe; never runs `body` synchronously.
    ///
    /// - Returns: `true` if `body` will run; `false` once ``stop()`` has been called, or when the loop already holds
    ///   `LoopBudgets.maxPendingPosts` posts.
    ///
    /// - Parameters:
    ///   - body: The work to run.
    ///   - site: Where it comes from (`post { … }` passes the caller's).
    @discardableResult
    public nonisolated func post(_ body: @escaping @MainActor @Sendable () -> Void, from site: LoopSite) -> Bool {
        noteIfPostedByOwnCallback()
        return enqueue(body, site: site).postResult == .accepted
    }

    /// Queues `body` to run at the next step, or says why it will not: the loop is full
    /// (`LoopBudgets.maxPendingPosts`) or stopped. Thread-safe. See `SerialLoop.tryPost(_:from:)`.
    ///
    /// - Parameters:
    ///   - body: The work to run.
    ///   - site: Where it comes from (`tryPost { … }` passes the caller's).
    /// - Returns: What became of `body`.
    public nonisolated func tryPost(
        _ body: @escaping @MainActor @Sendable () -> Void,
        from site: LoopSite
    ) -> PostResult {
        noteIfPostedByOwnCallback()
        return enqueue(body, site: site).postResult
    }

    /// Simulates the arrival of `signal`: its handlers run in the post phase of the next step. Thread-safe.
    ///
    /// - Returns: `false` once the loop has been stopped.
    @discardableResult
    public nonisolated func raise(_ signal: LoopSignal) -> Bool {
        post(label: "signal") { [core] in core.deliverSignal(signal) }
    }

    /// Stops the loop. Thread-safe and idempotent. Posts are refused from now on; the next step runs what was
    /// already posted, settles, and cancels timers and signal handlers, as `MainLoop.stop()` does.
    public nonisolated func stop() {
        core.posts.close()
    }

    /// Stops the loop; the shutdown step runs posted work only while virtual time is before `drainDeadline` from
    /// that step, and releases the rest unrun, as `MainLoop.stop(drainDeadline:)` does. Thread-safe.
    ///
    /// Virtual time does not pass while posted work runs (unless a body calls ``simulateBusy(for:)``), so a positive
    /// deadline runs everything and zero or less runs nothing: the two cases a test can state exactly.
    ///
    /// - Parameter drainDeadline: How much virtual time posted work may take at shutdown.
    public nonisolated func stop(drainDeadline: Duration) {
        core.posts.close(drainDeadline: .afterShutdownBegins(drainDeadline))
    }

    /// How many posted bodies shutdown released unrun because the drain deadline passed.
    public var postsDiscarded: Int { core.discardedAtShutdown }

    // MARK: Loop

    /// The work budgets of one iteration.
    public var budgets: LoopBudgets {
        get { core.budgets }
        set { core.budgets = newValue }
    }

    /// Runs `body` once when `delay` of virtual time has passed. See `SerialLoop.schedule(after:from:_:)`; callers
    /// write `schedule(after:) { … }`.
    ///
    /// - Parameters:
    ///   - delay: How long from ``now``.
    ///   - site: Where the timer was scheduled.
    ///   - body: The work to run.
    /// - Returns: The task, for cancelling.
    @discardableResult
    public func schedule(
        after delay: Duration,
        from site: LoopSite,
        _ body: @escaping @MainActor () -> Void
    ) -> ScheduledTask {
        core.schedule(after: delay, now: now, site: site, body)
    }

    /// Runs `body` once when virtual time reaches `deadline`. See `SerialLoop.schedule(at:from:_:)`.
    ///
    /// A deadline at or before ``now`` fires in the next timer phase: the next ``runIteration()`` (or `advance`),
    /// never synchronously.
    ///
    /// - Parameters:
    ///   - deadline: When to fire.
    ///   - site: Where the timer was scheduled.
    ///   - body: The work to run.
    /// - Returns: The task, for cancelling.
    @discardableResult
    public func schedule(
        at deadline: LoopInstant,
        from site: LoopSite,
        _ body: @escaping @MainActor () -> Void
    ) -> ScheduledTask {
        core.schedule(at: deadline, site: site, body)
    }

    /// Runs `body` every `interval` of virtual time. See `SerialLoop.scheduleRepeating(every:from:_:)`.
    ///
    /// - Parameters:
    ///   - interval: The period; must be positive.
    ///   - site: Where the timer was scheduled.
    ///   - body: The work to run; it receives the task.
    /// - Returns: The task, for cancelling.
    @discardableResult
    public func scheduleRepeating(
        every interval: Duration,
        from site: LoopSite,
        _ body: @escaping @MainActor (ScheduledTask) -> Void
    ) -> ScheduledTask {
        core.scheduleRepeating(every: interval, now: now, site: site, body)
    }

    /// Marks `notification` pending for the settle phase of the next step. See `Loop.requestSettle(_:)`.
    @discardableResult
    public func requestSettle(_ notification: SettleNotification) -> Bool {
        core.requestSettle(notification)
    }

    /// Asks, from any thread, for `request` to be settled at the next step's settle phase (the current step's, when
    /// one is running), without posting a job, as `MainLoop` does. Thread-safe. See `Loop.requestSettle(fromAnyThread:)`.
    ///
    /// - Returns: `false` once the loop has shut down.
    @discardableResult
    public nonisolated func requestSettle(fromAnyThread request: any SettleRequest) -> Bool {
        noteIfFromOtherThread("requestSettle(fromAnyThread:) of \(type(of: request))")
        return switch core.requestSettle(fromAnyThread: request) {
        case .enqueued, .enqueuedWithoutWaker: true
        case .closed, .full: false
        }
    }

    /// Registers a handler for `signal`, delivered by ``raise(_:)``. See `Loop.onSignal(_:_:)`.
    @discardableResult
    public func onSignal(
        _ signal: LoopSignal,
        _ handler: @escaping @MainActor (LoopSignal) -> Void
    )
        -> SignalRegistration
    {
        core.onSignal(signal, handler)
    }

    /// Runs `body` once, in the idle phase of the first step that leaves nothing due now. See `SerialLoop.whenIdle(_:from:)`.
    ///
    /// Thread-safe. A step's idle phase comes after its timers, posts and settle, and runs only when no post is
    /// waiting, nothing is pending for settle and no timer is due at ``now``. A registration from outside the loop's
    /// callbacks (the test itself, another thread) counts as work due now, so `runUntilIdle(maxIterations:)` and
    /// `advance(by:)` run it; one made by a callback runs in the idle phase of the step it ran in, and one made by
    /// an idle body waits for the next step that runs for another reason — so `runUntilIdle(maxIterations:)` ends
    /// even with a body that re-registers itself.
    ///
    /// - Parameters:
    ///   - body: The work to run when the loop is idle.
    ///   - site: Where it was registered (`whenIdle { … }` passes the caller's).
    /// - Returns: The registration, for cancelling.
    @discardableResult
    public nonisolated func whenIdle(
        _ body: @escaping @MainActor @Sendable () -> Void,
        from site: LoopSite
    ) -> IdleRegistration {
        noteIfFromOtherThread("whenIdle at \(site)")
        return core.whenIdle(body, site: site).0
    }

    /// Registers `body` to run when a step shuts the loop down, after posted work and settle, as
    /// `MainLoop.onShutdown(_:)` does.
    ///
    /// - Parameter body: The work to run at shutdown.
    /// - Returns: The registration, for cancelling.
    @discardableResult
    public func onShutdown(_ body: @escaping @MainActor () -> Void) -> ShutdownRegistration {
        core.onShutdown(body)
    }

    /// Reports the loop's metrics through `instrumentation`, measured in virtual time, as `MainLoop.instrument(_:)`
    /// does in real time; `nil` stops.
    ///
    /// A callback's duration is what ``simulateBusy(for:)`` says it took; a timer's lag is how far ``now`` had moved
    /// past its deadline when it fired. Totals are reported at the end of every ``runIteration()`` that did work.
    ///
    /// - Parameter instrumentation: Where the metrics go (a `TestMetrics` from `MetricsTestKit` in tests).
    public func instrument(_ instrumentation: LoopInstrumentation?) {
        core.instrument(instrumentation)
    }

    // MARK: Time

    /// Moves ``now`` forward to `instant`; never backwards.
    func moveTime(to instant: LoopInstant) {
        now = max(now, instant)
    }

    /// Moves virtual time forward by `duration` without running anything, as if the code running now had kept
    /// the loop busy that long.
    ///
    /// Call it from inside a callback to test how code copes with a loop that reaches its timers late, or between
    /// steps to model a loop that was blocked. Timers that became due meanwhile run at the next step, at the new
    /// ``now``: late, as they would on a real loop. A repeating timer then fires once and skips the firings it
    /// missed (see `ScheduledTask.skippedFirings`).
    ///
    /// ```swift
    /// loop.schedule(after: .milliseconds(150)) { loop.simulateBusy(for: .milliseconds(300)) }
    /// ```
    ///
    /// - Parameter duration: How long the loop is busy. A negative duration is reported to `Diagnostics` as
    ///   `.timeTravel` and ignored.
    public func simulateBusy(for duration: Duration) {
        guard duration >= .zero else {
            Diagnostics.report(
                .timeTravel,
                "TestLoop.simulateBusy(for: \(duration)) would move time backwards from \(now); a loop can only be busy for a positive duration. Ignoring it."
            )
            return
        }
        now = now + duration
    }

    // MARK: Inspection

    /// Whether anything is left: work due now (an idle body registered from outside the loop counts), or timers
    /// scheduled for later. An idle body registered by a callback does not count: it waits for a step.
    public var hasPendingWork: Bool { hasWorkDueNow || core.nextDeadline != nil }

    /// How many posted bodies the loop has run so far: how often it was handed work to run.
    ///
    /// Code that promises to post a bounded number of times is tested by reading this before and after; a lazy event
    /// triggered from many threads, or a mailbox, posts nothing and asks through ``settleRequestsFromOtherThreads``.
    public var postsRun: Int { core.postsRun }

    /// How many settle requests from other threads (`Loop.requestSettle(fromAnyThread:)`, which lazy events and
    /// mailboxes make on a worker thread) the loop has taken so far: what asked it for work besides posts. A burst of
    /// triggers that coalesces into one delivery takes one.
    public var settleRequestsFromOtherThreads: Int { core.settleRequestsTaken }

    /// The number of scheduled timers.
    public var scheduledTimerCount: Int { core.scheduledTimerCount }

    /// The deadline of the next timer to fire.
    public var nextDeadline: LoopInstant? { core.nextDeadline }

    /// Whether the loop has been stopped and shut down by a step.
    public var isStopped: Bool { core.isShutDown }

    var hasWorkDueNow: Bool {
        if core.posts.closed && !core.isShutDown { return true }
        if core.hasImmediateWork || core.posts.hasIncoming || core.isIdleWakeRequested { return true }
        if let next = core.nextDeadline, next <= now { return true }
        return false
    }
}

extension TestLoop: _LoopCoreOwner {}
