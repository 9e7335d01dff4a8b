import Logging

/// The scheduling core every loop shares: timers, posted work, the settle phase and signal handlers.
///
/// Must be used on the main actor, except ``posts``, which is thread-safe.
///
/// A driver owns one core and calls its phases: `MainLoop` from libuv callbacks (owner and guest mode),
/// `TestLoop` from the test's `advance`/`runUntilIdle`. Keeping the phases here is what makes virtual time in
/// tests behave exactly like the real loop: same ordering, same budgets, same settle rounds.
@MainActor
package final class _LoopCore {
    /// Posted work; the only part of the core other threads touch.
    package nonisolated let posts = _PostQueue()
    /// The work budgets of one iteration.
    package var budgets: LoopBudgets
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
    /// Whether ``shutDown()`` has run.
    package private(set) var isShutDown = false

    private let timers = _TimerQueue()
    private let settleQueue = _SettleQueue()
    private let signals = _SignalRegistry()
    /// Jobs taken from `posts` and not yet run (protected by the main actor).
    private var batch = ContiguousArray<_PostQueue.Slot>()
    private var batchIndex = 0

    private static let logger = Logger(label: "mainline.loop")

    package nonisolated init(budgets: LoopBudgets = .default) {
        self.budgets = budgets
        signals.watchDidChange = { [unowned self] signal, watched in self.signalWatchDidChange?(signal, watched) }
    }

    // MARK: Requests

    package func schedule(
        after delay: Duration,
        now: LoopInstant,
        _ body: @escaping @MainActor () -> Void
    )
        -> ScheduledTask
    {
        let task = ScheduledTask(deadline: now + max(delay, .zero), interval: nil, body: .once(body))
        return insert(task)
    }

    package func scheduleRepeating(
        every interval: Duration,
        now: LoopInstant,
        _ body: @escaping @MainActor (ScheduledTask) -> Void
    ) -> ScheduledTask {
        let interval = _validRepeatingInterval(interval, caller: "scheduleRepeating")
        let task = ScheduledTask(deadline: now + interval, interval: interval, body: .repeating(body))
        return insert(task)
    }

    package func requestSettle(_ notification: SettleNotification) -> Bool {
        guard !isShutDown else { return false }
        let wasIdle = !settleQueue.hasPending
        guard settleQueue.request(notification) else { return false }
        if wasIdle { needsAttention?() }
        return true
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

    private func insert(_ task: ScheduledTask) -> ScheduledTask {
        guard !isShutDown else {
            task.cancel()
            return task
        }
        if timers.insert(task) { needsAttention?() }
        return task
    }

    // MARK: State the drivers read

    /// The deadline of the earliest scheduled timer.
    package var nextDeadline: LoopInstant? { timers.nextDeadline }

    /// The number of scheduled timers.
    package var scheduledTimerCount: Int { timers.count }

    /// Whether the next iteration has work that must not wait for I/O: posts left over from the budget, or
    /// notifications pending for settle.
    package var hasImmediateWork: Bool { batchIndex < batch.count || settleQueue.hasPending }

    /// Whether posted work is waiting for a later post phase: the rest of a snapshot the budget cut short, or
    /// posts that arrived after the snapshot was taken.
    ///
    /// Thread-safe parts aside, a driver must check this after every post phase and wake itself when it is
    /// `true`: producers wake the loop only when the queue goes from empty to non-empty, so posts that piled up
    /// behind a snapshot would otherwise wait forever.
    package var hasPostsWaiting: Bool { batchIndex < batch.count || posts.hasIncoming }

    // MARK: Phases

    /// Phase 1: fires the timers due at `now` that were scheduled before the phase began, in deadline order
    /// (ties in scheduling order). Returns how many fired.
    @discardableResult
    package func runDueTimers(now: LoopInstant) -> Int {
        _RunningLoop.with(owner) { fireDueTimers(now: now) }
    }

    private func fireDueTimers(now: LoopInstant) -> Int {
        let mark = timers.sequenceMark
        var fired = 0
        while let task = timers.popDue(now: now, scheduledBefore: mark) {
            fire(task, now: now)
            fired += 1
        }
        return fired
    }

    private func fire(_ task: ScheduledTask, now: LoopInstant) {
        task.firings += 1
        switch task.body {
        case .once(let body):
            task.state = .fired
            task.body = nil
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
        case nil:
            preconditionFailure("BUG DETECTED: a scheduled timer has no body (state \(task.state))")
        }
    }

    /// Phase 2: runs posted work, at most one budget's worth. Returns how many jobs ran.
    ///
    /// A phase runs one snapshot of the post queue: what is left of the previous snapshot (when the budget cut it
    /// short), or else everything posted so far. Work posted while the phase runs, including from the loop itself,
    /// waits for the next iteration, after this one's settle phase.
    @discardableResult
    package func runPosts() -> Int {
        _RunningLoop.with(owner) { runPosts(limit: budgets.postsPerIteration) }
    }

    private func runPosts(limit: Int) -> Int {
        if batchIndex == batch.count {
            batch.removeAll(keepingCapacity: true)
            batchIndex = 0
            posts.takeAll(into: &batch)
        }
        var ran = 0
        while ran < limit && batchIndex < batch.count {
            // Release each closure as soon as it has run: releasing a large batch at once stalls the loop.
            // (Not `Optional.take()`: it brings back the per-job reabstraction allocation `Slot` avoids.)
            let job = batch[batchIndex].job!
            batch[batchIndex].job = nil
            batchIndex += 1
            job()
            ran += 1
        }
        return ran
    }

    /// Phase 3: delivers pending settle notifications, at most one budget of rounds. Returns the rounds run.
    @discardableResult
    package func runSettle() -> Int {
        _RunningLoop.with(owner) { settleQueue.settle(rounds: budgets.settleRoundsPerIteration) }
    }

    /// Runs the handlers of `signal`.
    package func deliverSignal(_ signal: LoopSignal) {
        _RunningLoop.with(owner) { signals.deliver(signal) }
    }

    /// Ends the core's life: runs every job already posted (the post queue must be closed), settles, then
    /// cancels timers and signal handlers. Afterwards requests are refused. Returns how many posted jobs ran.
    @discardableResult
    package func shutDown() -> Int {
        _RunningLoop.with(owner) { finalShutDown() }
    }

    private func finalShutDown() -> Int {
        guard !isShutDown else { return 0 }
        precondition(posts.closed, "BUG DETECTED: shutDown() needs the post queue closed first")
        var ran = 0
        while case let count = runPosts(limit: .max), count > 0 { ran += count }
        isShutDown = true
        runSettle()
        let discarded = settleQueue.removeAll()
        if discarded > 0 {
            Self.logger.warning(
                "Loop shut down with settle notifications still pending after the round budget; discarded them",
                metadata: ["count": "\(discarded)"]
            )
        }
        timers.cancelAll()
        signals.removeAll()
        return ran
    }
}
