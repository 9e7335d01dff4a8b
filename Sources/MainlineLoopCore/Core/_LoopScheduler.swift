import Logging

/// The scheduling core every loop runs, whatever its isolation: the post phase with its budget and its one
/// drain-deadline rule, the timer phase's order, the idle phase, the decision before blocking, and the one probe
/// (`_LoopProbe`) every phase stamps, which the progress a snapshot reports, the flight recorder, the instruments and
/// the stall watchdog read.
///
/// `posts`, `idle`, `progress` and `recorder` are thread-safe; every other member must be called where the loop runs — the main
/// actor for the loops of `_LoopCore` (`MainLoop`, `TestLoop`), the loop thread for an `EventLoop`. The loop that
/// owns a scheduler is what serializes it.
///
/// The loops differ only where isolation forces it, and each difference is written down where it is: `_LoopCore`
/// adds what only a main-actor loop has (settle, signals, shutdown hooks, instrumentation, main-actor timers);
/// `EventLoop._Driver` adds thread-safe timers (`EventLoop._Timers`, scheduled from any thread) and executor jobs.
/// Every phase below is written once and both call it.
package final class _LoopScheduler: @unchecked Sendable {
    // @unchecked Sendable: `posts`, `idle` and `progress` are thread-safe; `postsPerIteration`, `drain` and
    // `onDiscard` are touched only where the loop runs (see the type's comment), which serializes them; `order` is
    // written once by the loop that owns the scheduler, in its initializer before the scheduler is shared, and read
    // only where the loop runs.

    /// Posted work (and an `EventLoop`'s executor jobs). Thread-safe.
    package let posts: _JobQueue
    /// Idle bodies. Thread-safe.
    package let idle = _IdleQueue()
    /// The probe of every phase: the phases below, and a main-actor loop's own (`_LoopCore`), call it at their
    /// boundaries.
    package let probe: _LoopProbe
    /// The phase and counters a snapshot reports (the probe's). Thread-safe.
    package let progress: _LoopProgress
    /// The loop's flight recorder (the probe's). Reading it is thread-safe.
    package let recorder: LoopFlightRecorder
    // Unchecked exclusivity on the stored state below that every iteration touches: it is read and written in place,
    // never held across a call out (the type's comment says what serializes it); the dynamic checks were a measurable
    // part of an iteration (Benchmarks/HISTORY.md, "Speed").
    /// The post budget of one iteration (``LoopBudgets/postsPerIteration``).
    @exclusivity(unchecked) package var postsPerIteration: Int
    /// Which ready item runs next where the rules allow several orders; `nil` (a real loop): stored order. Set only by
    /// the owning loop's initializer; read once per phase (see `_ReadyOrder`).
    @exclusivity(unchecked) package var order: (any _ReadyOrder)?
    /// Where the loop is with a drain deadline.
    @exclusivity(unchecked) var drain = Drain.notDraining
    /// Reports posted jobs released unrun at a drain deadline to the loop's metrics (after the log line).
    @exclusivity(unchecked) package var onDiscard: ((Int) -> Void)?
    /// What the log line calls the loop.
    private let loopName: String

    private static let logger = Logger(label: "mainline.loop")

    enum Drain {
        case notDraining
        /// The queue closed with a deadline: a posted job starts only before it.
        case until(LoopInstant)
        /// The queue closed without a deadline: everything posted runs.
        case withoutDeadline
        /// The deadline passed and what was waiting was released: nothing is held back any more.
        case passed
    }

    /// - Parameter clock: The loop's clock in nanoseconds, for its probe: `nil` for `CLOCK_MONOTONIC`, or a
    ///   `TestLoop`'s virtual time.
    package init(
        budgets: LoopBudgets,
        loopName: String,
        recorder settings: LoopFlightRecorder.Settings = .init(),
        clock: (@Sendable () -> UInt64)? = nil
    ) {
        posts = _JobQueue(limit: budgets.maxPendingPosts)
        probe = _LoopProbe(recorder: settings, clock: clock)
        progress = probe.progress
        recorder = probe.recorder
        postsPerIteration = budgets.postsPerIteration
        self.loopName = loopName
    }

    // MARK: Phases

    /// The timer phase: fires, through `fire`, each timer `popDue` hands out — due now and scheduled before the
    /// phase began (`popDue` gets the sequence mark read first), in deadline order with ties in scheduling order,
    /// as the heap (`_DeadlineHeap`) orders them. Timers scheduled by this phase's callbacks wait for the next one.
    /// Returns how many fired. The probe stamps the phase and each firing with its site (`site`).
    @inline(__always)
    package func runTimers<Firing>(
        sequenceMark: UInt64,
        popDue: (_ scheduledBefore: UInt64) -> Firing?,
        site: (Firing) -> LoopSite,
        fire: (Firing) -> Void
    ) -> Int {
        var run = probe.begin(.timers)
        var fired = 0
        while let firing = popDue(sequenceMark) {
            let site = site(firing)
            probe.willRun(&run, site: site)
            fire(firing)
            fired &+= 1
            probe.ran(&run, site: site)
        }
        probe.end(&run, count: fired)
        return fired
    }

    /// The post phase: runs at most `limit` jobs of one snapshot of the post queue — what is left of the previous
    /// snapshot (when the budget cut it short), or else everything posted so far — releasing each right after it ran.
    /// Work posted while the phase runs, including from the loop itself, waits for a later phase. Returns how many
    /// jobs ran.
    ///
    /// **The drain-deadline rule, the one for every loop:** once the queue is closed with a deadline, a posted job
    /// starts only before it (read with `now`, the loop's clock, before each job); at the deadline every posted
    /// closure still waiting — in the batch and behind it — is released unrun and reported (a warning through
    /// `mainline.loop`, then ``onDiscard``). Executor jobs (an `EventLoop`'s) still run: their tasks must finish. A
    /// deadline given as time after shutdown begins is fixed the first time a phase sees the closed queue.
    ///
    /// The probe stamps the phase (`phase`: `.drainingPosts` while a main-actor loop shuts down) and each job; the
    /// flight recorder times the jobs in runs (`LoopFlightRecorder.SlowWork`): one decrement per job, a clock read per
    /// run.
    ///
    /// The caller ends the phase: ``afterPosts(shutsDown:)``, or `posts.endPhase()` for a loop that shuts down its own
    /// way.
    @inline(__always)
    package func runPosts(limit: Int, now: () -> LoopInstant, phase: _LoopProbe.Kind = .posts) -> Int {
        if let order { return runPosts(in: order, limit: limit, now: now, phase: phase) }
        var run = probe.begin(phase)
        // The close is seen by the first phase after it — not only at the next refill, which may be budgets away — and
        // the deadline is fixed then, once (one atomic load per phase until the queue closes).
        if case .notDraining = drain, posts.closed { beginDraining(posts.closingDeadline, now: now) }
        posts.refillIfDone()
        // Read once, into a register: a loop that is not draining tests a local per job, not a stored property.
        var deadline: LoopInstant? = if case .until(let instant) = drain { instant } else { nil }
        var ran = 0
        while ran < limit, let item = nextPost(deadline: &deadline, now: now) {
            probe.willRun(&run, site: item.site)
            item.job()
            ran &+= 1
            probe.ranPost(&run, from: posts)
        }
        probe.end(&run, count: ran, posts: posts)
        return ran
    }

    /// The next job of the batch, once the drain deadline (if any) is checked: at the deadline, what is waiting is
    /// released first.
    @inline(__always)
    private func nextPost(deadline: inout LoopInstant?, now: () -> LoopInstant) -> (job: _JobQueue.Job, site: LoopSite)?
    {
        if let until = deadline, now() >= until {
            releaseAtDeadline()
            deadline = nil
        }
        return posts.next()
    }

    /// When a loop shuts down once its queue is closed.
    package enum ShutdownPoint {
        /// In the first post phase that finds the queue closed; the loop then drains what is left itself. The
        /// main-actor loops: their shutdown (`_LoopCore.shutDown()`) settles and runs hooks on the main actor.
        case atClose
        /// Once ordinary iterations have drained the queue: an `EventLoop`, whose running tasks' executor jobs keep
        /// arriving until none is left.
        case whenDrained
    }

    /// Ends a post phase and says what follows it (see `_JobQueue.AfterPhase`): `.closed` when the loop must shut down
    /// now (at `point`), `.moreWaiting` when it must come round for posts itself (producers wake only a loop that went
    /// to sleep), `.idle` when it may block.
    package func afterPosts(shutsDown point: ShutdownPoint) -> _JobQueue.AfterPhase {
        if case .atClose = point, posts.closed {
            posts.endPhase()
            return .closed
        }
        return posts.afterPhase()
    }

    /// Whether posts wait for a post phase: after the timer phase, what the timers posted (a post from the loop's own
    /// thread wakes nothing) runs in this iteration's post phase if the loop asks for it.
    package var hasPostsWaiting: Bool { posts.hasIncoming }

    /// The loop is about to block: whether it must run a post phase first — jobs are waiting, or the queue was closed
    /// (the post phase is where a loop notices that) — because a post or a `stop()` from inside the loop's own phases
    /// does not wake it. When it says `false` the queue has been told that the loop sleeps, so that the next post
    /// wakes it: ask it only right before blocking.
    package func mustRunPostsBeforeBlocking() -> Bool { posts.closed || !posts.prepareToSleep() }

    /// Whether the idle phase is due: bodies are registered and nothing else is pending — no other immediate work
    /// (`otherWork`: settle on a main-actor loop), no posts waiting, the queue not closing, no timer due at `now`.
    ///
    /// Costs one atomic load when no body is registered.
    @inline(__always)
    package func idlePhaseIsDue(
        otherWork: @autoclosure () -> Bool,
        nextDeadline: @autoclosure () -> LoopInstant?,
        now: @autoclosure () -> LoopInstant
    ) -> Bool {
        guard idle.hasPending, !otherWork(), posts.batchIsDone, !posts.needsPostPhase else { return false }
        if let next = nextDeadline(), next <= now() { return false }
        return true
    }

    /// The idle phase: runs, through `run`, every body registered before the phase began, in registration order.
    /// Returns how many ran. Bodies registered while the phase runs wait for the next idle phase; what the bodies
    /// post, schedule or settle runs in the next iteration. The probe stamps the phase and each body with its site.
    package func runIdle(_ run: (IdleRegistration, _IdleBody) -> Void) -> Int {
        var ran = 0
        var phase = probe.begin(.idle)
        for registration in idle.takeAll() {
            // Taken one at a time: a body may cancel one registered after it.
            guard let body = idle.take(registration) else { continue }
            probe.willRun(&phase, site: registration.site)
            run(registration, body)
            ran += 1
            probe.ran(&phase, site: registration.site)
        }
        probe.end(&phase, count: ran)
        return ran
    }

    /// The loop is about to wait for I/O or time.
    @inline(__always)
    package func willWait() {
        probe.willWait()
    }

    /// The iteration is over.
    @inline(__always)
    package func endIteration() {
        probe.endIteration()
    }

    // MARK: Draining

    func beginDraining(_ closing: _JobQueue.DrainDeadline?, now: () -> LoopInstant) {
        switch closing {
        case .at(let instant): drain = .until(instant)
        case .afterShutdownBegins(let duration): drain = .until(now() + duration)
        case nil: drain = .withoutDeadline
        }
    }

    /// The drain deadline passed: releases every posted closure not yet run, in the batch and behind it (executor
    /// jobs still run), and reports how many, with `alreadyTaken` posts the caller took from the batch and released.
    func releaseAtDeadline(alreadyTaken: Int = 0) {
        drain = .passed
        let released = posts.releasePostsUnrun() + alreadyTaken
        guard released > 0 else { return }
        Self.logger.warning(
            "Loop stopped at its drain deadline with posted work still waiting; released it unrun",
            metadata: ["loop": "\(loopName)", "discarded": "\(released)"]
        )
        progress.didDiscard(released)
        onDiscard?(released)
    }

    // MARK: Snapshots

    /// The counters a snapshot reports, the same for every loop: `settleDeliveries` is the settle queue's (zero for
    /// a loop without settle).
    package func counters(settleDeliveries: Int = 0) -> LoopSnapshot.Counters {
        LoopSnapshot.Counters(
            iterations: progress.iterations,
            postsRun: progress.postsRun,
            postsRejected: posts.rejectedCount,
            postsDiscarded: progress.discarded,
            timersFired: progress.timersFired,
            settleDeliveries: settleDeliveries
        )
    }

    /// How many jobs wait for a post phase, the same rule for every loop: exact where the loop runs (a job that is
    /// running is no longer waiting); from any other thread, as of the loop's last post phase (the jobs of the batch
    /// a phase is running count until it ends: the loop publishes its progress per phase, not per job).
    package func pendingPosts(onLoop: Bool) -> Int {
        onLoop ? posts.pendingOnLoop : posts.pendingCount
    }
}
