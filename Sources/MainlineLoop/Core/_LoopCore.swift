import Glibc
import Logging

/// The core of a main-actor loop: the scheduling core every loop runs (``scheduler``: posts, the timer phase's order,
/// idle, progress), plus what only a main-actor loop has — main-actor timers, the settle phase, signal handlers,
/// shutdown hooks and instrumentation.
///
/// Must be used on the main actor, except ``posts``, ``idle`` and ``scheduler``'s thread-safe parts.
///
/// A driver owns one core and calls its phases: `MainLoop` from libuv callbacks (owner and guest mode),
/// `TestLoop` from the test's `advance`/`runUntilIdle`. Keeping the phases here is what makes virtual time in
/// tests behave exactly like the real loop: same ordering, same budgets, same settle rounds. An `EventLoop` runs the
/// same ``scheduler``; it has no settle phase, signals or instrumentation, and its timers are thread-safe.
@MainActor
package final class _LoopCore {
    /// The scheduling core shared with `EventLoop`: the post, timer and idle phases, and the progress counters.
    package nonisolated let scheduler: _LoopScheduler
    /// Posted work (the scheduler's); the only part of the core other threads touch.
    package nonisolated let posts: _JobQueue
    /// Idle bodies (the scheduler's; see `_LoopCore+Idle.swift`); thread-safe, like ``posts``.
    package nonisolated let idle: _IdleQueue
    /// Whether posts and timers carry the caller's `ServiceContext` (see `_LoopCore+ServiceContext.swift`).
    package nonisolated let serviceContext = _ServiceContextSwitch()
    /// The work budgets of one iteration.
    package var budgets: LoopBudgets {
        didSet {
            if budgets.maxPendingPosts != oldValue.maxPendingPosts { posts.setLimit(budgets.maxPendingPosts) }
            scheduler.postsPerIteration = budgets.postsPerIteration
        }
    }
    /// Called when main-actor code changed what the loop must do next (a timer, a settle request) so that a
    /// driver that is between iterations can wake up or re-arm.
    // nonisolated(unsafe): written once by the driver that owns the core, before the core is shared; read only
    // on the main actor.
    package nonisolated(unsafe) var needsAttention: (@MainActor () -> Void)?
    /// Called with a signal and `true` when it gains its first handler, `false` when it loses its last.
    // nonisolated(unsafe): as `needsAttention`.
    package nonisolated(unsafe) var signalWatchDidChange: (@MainActor (LoopSignal, Bool) -> Void)?
    /// The loop object this core serves (`MainLoop` or `TestLoop`), marked as the running loop during every phase
    /// so that ``_RunningLoop/isRunning(_:)`` can recognise its callbacks.
    // nonisolated(unsafe): written once by the loop that owns the core, in its initializer, before the core is
    // shared; read only on the main actor.
    package nonisolated(unsafe) var owner: UnsafeRawPointer?
    /// The clock the loop's phases are measured with when instrumented: real time for `MainLoop`, virtual time for
    /// `TestLoop`.
    // nonisolated(unsafe): as `owner`.
    package nonisolated(unsafe) var clock: (@MainActor () -> LoopInstant)?
    /// Whether ``shutDown()`` has run.
    package private(set) var isShutDown = false
    /// How many posted jobs shutdown released unrun because the drain deadline passed.
    package var discardedAtShutdown: Int { progress.discarded }

    // Instrumentation (see `_LoopCore+Instrumentation.swift`), all protected by the main actor.
    /// The metrics of the iteration in progress; `nil` when the loop is not instrumented. Phases read it once each.
    var instruments: _LoopInstruments?
    /// The watchdog's stamp; `nil` without a watchdog. Kept apart from `instruments`, so that the post phase reads
    /// one optional, once, to know whether to stamp each job.
    var monitor: _StallMonitor?
    /// Named mailboxes whose drops the instrumentation reports.
    var dropSources: [_DropSource] = []
    /// Whether a measured phase is running.
    var isMeasuring = false
    /// The phase running now and the counters a snapshot reports (the scheduler's; see `_LoopCore+Snapshot.swift`).
    let progress: _LoopProgress
    /// Hooks run during shutdown, in registration order (protected by the main actor).
    private var shutdownHooks: [ShutdownRegistration] = []

    let timers = _TimerQueue()
    let settleQueue = _SettleQueue()
    /// Settle requests from other threads, moved into `settleQueue` at the start of each settle phase.
    nonisolated let settleInbox = _SettleInbox()
    private let signals = _SignalRegistry()

    private static let logger = Logger(label: "mainline.loop")

    package nonisolated init(budgets: LoopBudgets = .default, loopName: String) {
        self.budgets = budgets
        scheduler = _LoopScheduler(budgets: budgets, loopName: loopName)
        posts = scheduler.posts
        idle = scheduler.idle
        progress = scheduler.progress
        scheduler.onDiscard = { [unowned self] released in
            // The scheduler calls this in a post phase, which runs on the main actor for this core.
            MainActor.assumeIsolated { self.instruments?.discardedPosts(released) }
        }
        signals.watchDidChange = { [unowned self] signal, watched in self.signalWatchDidChange?(signal, watched) }
    }

    // MARK: Requests

    package func schedule(
        after delay: Duration,
        now: LoopInstant,
        label: StaticString? = nil,
        _ body: @escaping @MainActor () -> Void
    )
        -> ScheduledTask
    {
        schedule(at: now + max(delay, .zero), label: label, body)
    }

    /// Schedules `body` once at `deadline`; a deadline in the past fires in the next timer phase (never in the one
    /// running: see ``runDueTimers(now:)``).
    package func schedule(
        at deadline: LoopInstant,
        label: StaticString? = nil,
        _ body: @escaping @MainActor () -> Void
    ) -> ScheduledTask {
        let body = serviceContext.carry(timer: body)
        // A label rides in the body (see `ScheduledTask.Body.labelled`): unlabelled timers stay as they were.
        let labelledBody = ScheduledTask.Body.labelling(.once(body), label)
        return insert(ScheduledTask(deadline: deadline, interval: nil, body: labelledBody))
    }

    package func scheduleRepeating(
        every interval: Duration,
        now: LoopInstant,
        label: StaticString? = nil,
        _ body: @escaping @MainActor (ScheduledTask) -> Void
    ) -> ScheduledTask {
        let interval = _validRepeatingInterval(interval, caller: "scheduleRepeating")
        let body = serviceContext.carry(repeating: body)
        let labelledBody = ScheduledTask.Body.labelling(.repeating(body), label)
        return insert(ScheduledTask(deadline: now + interval, interval: interval, body: labelledBody))
    }

    /// Posts `body` so that, once it runs, the watchdog knows it as `label`.
    ///
    /// Thread-safe. Costs one closure allocation more than an unlabelled post; unlabelled posts pay nothing for labels.
    package nonisolated func post(
        label: StaticString,
        _ body: @escaping @MainActor @Sendable () -> Void
    ) -> _JobQueue.EnqueueResult {
        let body = serviceContext.carry(post: body)
        return posts.enqueue(
            _JobQueue.mainActorJob { [unowned self] in
                monitor?.relabel(label)
                body()
            }
        )
    }

    package func requestSettle(_ notification: SettleNotification) -> Bool {
        guard !isShutDown else { return false }
        instruments?.triggers += 1
        let wasIdle = !settleQueue.hasPending
        guard settleQueue.request(notification) else { return false }
        if wasIdle { needsAttention?() }
        return true
    }

    /// Asks for `request` to be settled, from any thread: pushes it on the settle inbox (one compare-and-swap) and
    /// wakes the loop if it sleeps — no posted job. The loop resolves it in the settle phase of the iteration that
    /// sees it: this one's, when the loop is running. Thread-safe.
    ///
    /// - Returns: `.enqueued`; `.enqueuedWithoutWaker` when the loop has not started (the caller starts it, as for a
    ///   post); `.closed` once the core has shut down (the request is dropped).
    package nonisolated func requestSettle(fromAnyThread request: any SettleRequest) -> _JobQueue.EnqueueResult {
        guard settleInbox.push(request) else { return .closed }
        // After the push (sequentially consistent, as the loop's setting of the bit before it looks at the inbox):
        // either the loop sees the request before it blocks, or this sees that it sleeps and wakes it.
        return posts.wakeIfSleeping()
    }

    /// How many requests from other threads settle phases have taken so far.
    package private(set) var settleRequestsTaken = 0

    /// Moves the requests made from other threads into the settle queue, in the order they were made.
    @inline(__always)
    private func absorbSettleInbox() {
        guard settleInbox.hasRequests else { return }
        let requests = settleInbox.takeAll()
        settleRequestsTaken &+= requests.count
        for request in requests {
            guard let notification = request.notificationToSettle() else { continue }
            _ = requestSettle(notification)
        }
    }

    package func onSignal(
        _ signal: LoopSignal,
        _ handler: @escaping @MainActor (LoopSignal) -> Void
    )
        -> SignalRegistration
    {
        let registration = signals.add(signal, handler)
        if isShutDown { registration.cancel() }
        return registration
    }

    /// Registers `body` to run during shutdown, after posted work and settle (see ``ShutdownRegistration``).
    package func onShutdown(_ body: @escaping @MainActor () -> Void) -> ShutdownRegistration {
        let registration = ShutdownRegistration(body)
        if isShutDown {
            registration.cancel()
        } else {
            shutdownHooks.removeAll { !$0.isActive }
            shutdownHooks.append(registration)
        }
        return registration
    }

    private func insert(_ task: ScheduledTask) -> ScheduledTask {
        guard !isShutDown else {
            task.cancel0()
            return task
        }
        timersArmed &+= 1
        if timers.insert(task) { needsAttention?() }
        return task
    }

    // MARK: State the drivers read

    /// The deadline of the earliest scheduled timer.
    package var nextDeadline: LoopInstant? { timers.nextDeadline }

    /// The number of scheduled timers.
    package var scheduledTimerCount: Int { timers.count }

    /// How many timers have been scheduled so far: `TestLoop`'s async stepping compares it across a main-queue round
    /// to see whether a task it woke came back to wait on a timer (a clock sleep).
    package private(set) var timersArmed = 0

    /// How many posts wait for a later post phase (a job that is running is no longer waiting).
    var postsWaitingCount: Int { posts.pendingOnLoop }

    /// How many settle notifications have been delivered so far.
    var settleDeliveries: Int { settleQueue.deliveries }

    /// Whether the next iteration has work that must not wait for I/O: posts left over from the budget, or
    /// notifications pending for settle.
    package var hasImmediateWork: Bool { !posts.batchIsDone || settleQueue.hasPending || settleInbox.hasRequests }

    /// Whether notifications are pending for settle: after a settle phase, only those requested again faster than its
    /// round budget delivers them (requesting settle is main-actor work, so the loop's own callbacks asked).
    package var hasSettlePending: Bool { settleQueue.hasPending }

    /// Whether a driver must run a post phase before it blocks: posts are waiting, or the post queue was closed (the post
    /// phase is where a driver notices that and shuts down). Asked before every poll, because a post or a `stop()`
    /// from inside the loop's own phases does not wake it. When it says `false`, the queue has been told that the loop
    /// sleeps, so that the next post wakes it: ask it only right before blocking.
    package func mustRunPostsBeforeBlocking() -> Bool { posts.closed || !posts.prepareToSleep() }

    // MARK: Phases

    /// Phase 1: fires the timers due at `now` that were scheduled before the phase began, in deadline order
    /// (ties in scheduling order). Returns how many fired.
    @discardableResult
    package func runDueTimers(now: LoopInstant) -> Int {
        guard let instruments else { return _RunningLoop.with(owner) { fireDueTimers(now: now) } }
        return measured(instruments) { fireDueTimers(now: now) }
    }

    private func fireDueTimers(now: LoopInstant) -> Int {
        // Cancellations made off the loop since the last look: their bodies are released here, before any fires.
        _TimerCancellations.absorb()
        // Read once, into a register: the uninstrumented path tests a local per timer, not a stored property.
        let instruments = self.instruments
        let monitor = self.monitor
        // Main-actor timers (`_TimerQueue`, no lock: they are scheduled on the main actor only) where an `EventLoop`
        // has thread-safe ones; the phase itself is the scheduler's.
        return scheduler.runTimers(
            sequenceMark: timers.sequenceMark,
            popDue: { mark in
                while let task = timers.popDue(now: now, scheduledBefore: mark) {
                    // Cancelled on another thread after the absorb above: it lost, its body never starts. The next
                    // absorb releases the body (the task is no longer in the heap, so nothing else changes).
                    if task.commitFiring() { return task }
                }
                return nil
            },
            fire: { task in
                if let instruments {
                    instruments.timerFired(lateBy: (now - task.deadline).mainlineNanoseconds)
                    monitor?.begin("timer")
                }
                fire(task, now: now)
            }
        )
    }

    private func fire(_ task: ScheduledTask, now: LoopInstant) {
        task.firings += 1
        guard let body = task.body else {
            preconditionFailure("BUG DETECTED: a scheduled timer has no body (state \(task.stateDescription))")
        }
        fire(task, body, now: now)
    }

    private func fire(_ task: ScheduledTask, _ body: ScheduledTask.Body, now: LoopInstant) {
        switch body {
        case .labelled(let label, let body):
            monitor?.relabel(label)
            fire(task, body, now: now)
        case .once(let body):
            task.body = nil  // `commitFiring()` already made the task `fired`
            body()
        case .repeating(let body):
            // Re-insert before running, so that `cancel()` from inside the body finds the task scheduled.
            let (next, skipped) = _nextFixedRateDeadline(
                after: task.deadline.nanoseconds,
                interval: task.interval!.mainlineNanoseconds,
                now: now.nanoseconds
            )
            task.skippedFirings += skipped
            task.deadline = LoopInstant(nanoseconds: next)
            _ = timers.insert(task)  // inside the timer phase: the driver re-arms after the phase anyway
            body(task)
        }
    }

    /// Phase 2: runs posted work, at most one budget's worth. Returns how many jobs ran.
    ///
    /// A phase runs one snapshot of the post queue: what is left of the previous snapshot (when the budget cut it
    /// short), or else everything posted so far. Work posted while the phase runs, including from the loop itself,
    /// waits for the next iteration, after this one's settle phase.
    @discardableResult
    package func runPosts() -> Int {
        progress.enter(.posts)
        guard let instruments else { return _RunningLoop.with(owner) { runPosts(limit: budgets.postsPerIteration) } }
        let ran = measured(instruments) { runPosts(limit: budgets.postsPerIteration) }
        instruments.postsRun += ran
        return ran
    }

    private func runPosts(limit: Int) -> Int {
        // Publishes what ran: producers count the rest as pending. (A main-actor loop shuts down in the first post
        // phase that finds the queue closed — its driver checks `posts.closed` — rather than over later iterations as
        // an `EventLoop` does: its shutdown settles and runs hooks on the main actor; see `shutDown()`.)
        defer { posts.endPhase() }
        // Read once, into a register: without a watchdog each job costs one test of a local, not a load.
        let monitor = self.monitor
        // Main-actor jobs with their isolation erased (`_JobQueue.mainActorJob`); the core runs on the main actor. The
        // clock is read only while draining with a deadline.
        return scheduler.runPosts(limit: limit, now: { self.clock?() ?? _UVClock.now() }) { monitor?.begin("post") }
    }

    /// Phase 3: delivers pending settle notifications, at most one budget of rounds. Returns the rounds run.
    @discardableResult
    package func runSettle() -> Int {
        progress.enter(.settle)
        absorbSettleInbox()
        guard let instruments else {
            return _RunningLoop.with(owner) { settleQueue.settle(rounds: budgets.settleRoundsPerIteration) }
        }
        guard settleQueue.hasPending else { return 0 }
        monitor?.begin("settle")
        return measured(instruments) { settleQueue.settle(rounds: budgets.settleRoundsPerIteration) }
    }

    /// Runs the handlers of `signal`.
    package func deliverSignal(_ signal: LoopSignal) {
        progress.enter(.posts)
        guard let instruments else { return _RunningLoop.with(owner) { signals.deliver(signal) } }
        monitor?.begin("signal")
        instruments.ranOtherWork = true
        measured(instruments) { signals.deliver(signal) }
    }

    /// Ends the core's life: runs every job already posted (the post queue must be closed), settles, runs the
    /// shutdown hooks and settles what they triggered, then cancels timers and signal handlers and removes the
    /// instrumentation (its last totals reported, its watchdog stopped). Afterwards requests are refused. Returns how
    /// many posted jobs ran.
    @discardableResult
    package func shutDown() -> Int {
        _RunningLoop.with(owner) { finalShutDown() }
    }

    private func finalShutDown() -> Int {
        guard !isShutDown else { return 0 }
        progress.enter(.stopping)
        precondition(posts.closed, "BUG DETECTED: shutDown() needs the post queue closed first")
        // The loop will not be idle again: pending idle bodies are released unrun (see `Loop.whenIdle(_:)`).
        idle.close()
        let ran = drainPosts()
        instruments?.postsRun += ran
        absorbSettleInbox()
        settleQueue.settle(rounds: budgets.settleRoundsPerIteration)
        runShutdownHooks()
        isShutDown = true
        // Requests from other threads are refused from here on; what arrived before is settled with the hooks' work.
        for request in settleInbox.close() {
            if let notification = request.notificationToSettle() { _ = settleQueue.request(notification) }
        }
        settleQueue.settle(rounds: budgets.settleRoundsPerIteration)
        let discarded = settleQueue.removeAll()
        if discarded > 0 {
            Self.logger.warning(
                "Loop shut down with settle notifications still pending after the round budget; discarded them",
                metadata: ["count": "\(discarded)"]
            )
        }
        timers.cancelAll()
        signals.removeAll()
        endIteration()
        instruments?.watchdog?.stop()
        instruments = nil
        monitor = nil
        dropSources = []
        return ran
    }

    /// Runs every job posted before the queue closed — with a drain deadline, only those that start before it: the
    /// scheduler's one rule releases the rest unrun and reports them. Returns how many ran.
    private func drainPosts() -> Int {
        var ran = 0
        // Until every accepted post has run or was released (a phase stops early at a post still being written).
        while posts.pendingOnLoop > 0 {
            let count = runPosts(limit: .max)
            ran += count
            if count == 0 { sched_yield() }
        }
        return ran
    }

    private func runShutdownHooks() {
        let hooks = shutdownHooks
        shutdownHooks = []
        for hook in hooks {
            guard let body = hook.body else { continue }
            hook.body = nil
            monitor?.begin("shutdown hook")
            body()
        }
    }
}
