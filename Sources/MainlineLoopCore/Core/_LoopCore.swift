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
    // Unchecked exclusivity on the stored state below that every iteration touches: it is read and written in place,
    // never held across a call out (the type's comment says what serializes it); the dynamic checks were a measurable
    // part of an iteration (Benchmarks/HISTORY.md, "Speed").
    /// The work budgets of one iteration.
    @exclusivity(unchecked) package var budgets: LoopBudgets {
        didSet {
            if budgets.maxPendingPosts != oldValue.maxPendingPosts { posts.setLimit(budgets.maxPendingPosts) }
            scheduler.postsPerIteration = budgets.postsPerIteration
        }
    }
    /// Called when main-actor code changed what the loop must do next (a timer, a settle request) so that a
    /// driver that is between iterations can wake up or re-arm.
    // nonisolated(unsafe): written once by the driver that owns the core, before the core is shared; read only
    // on the main actor.
    @exclusivity(unchecked) package nonisolated(unsafe) var needsAttention: (@MainActor () -> Void)?
    /// Called with a signal and `true` when it gains its first handler, `false` when it loses its last.
    // nonisolated(unsafe): as `needsAttention`.
    @exclusivity(unchecked) package nonisolated(unsafe) var signalWatchDidChange:
        (@MainActor (LoopSignal, Bool) -> Void)?
    /// The loop object this core serves (`MainLoop` or `TestLoop`), marked as the running loop during every phase
    /// so that ``_RunningLoop/isRunning(_:)`` can recognise its callbacks.
    // nonisolated(unsafe): written once by the loop that owns the core, in its initializer, before the core is
    // shared; read only on the main actor.
    @exclusivity(unchecked) package nonisolated(unsafe) var owner: UnsafeRawPointer?
    /// The loop's clock, read by the post phase while draining with a deadline: real time for `MainLoop`, virtual
    /// time for `TestLoop`.
    // nonisolated(unsafe): as `owner`.
    @exclusivity(unchecked) package nonisolated(unsafe) var clock: (@MainActor () -> LoopInstant)?
    /// Whether ``shutDown()`` has run.
    @exclusivity(unchecked) package internal(set) var isShutDown = false
    /// How many posted jobs shutdown released unrun because the drain deadline passed.
    package var discardedAtShutdown: Int { progress.discarded }

    // Instrumentation (see `_LoopCore+Instrumentation.swift`), all protected by the main actor.
    /// The metrics of the iteration in progress; `nil` when the loop is not instrumented. They read the phases'
    /// probe (`scheduler.probe`) once per iteration.
    @exclusivity(unchecked) var instruments: _LoopInstruments?
    /// Named mailboxes whose drops the instrumentation reports and the flight recorder keeps.
    var dropSources: [_DropSource] = []
    /// When the flight recorder last looked at `dropSources` (the loop's clock, nanoseconds).
    @exclusivity(unchecked) var lastDropRecord: UInt64 = 0
    /// The phase running now and the counters a snapshot reports (the scheduler's; see `_LoopCore+Snapshot.swift`).
    package let progress: _LoopProgress
    /// Hooks run during shutdown, in registration order (protected by the main actor).
    var shutdownHooks: [ShutdownRegistration] = []

    package let timers = _TimerQueue()
    let settleQueue = _SettleQueue()
    /// Settle requests from other threads, moved into `settleQueue` at the start of each settle phase.
    nonisolated let settleInbox = _SettleInbox()
    /// How many requests from other threads settle phases have taken so far.
    @exclusivity(unchecked) package internal(set) var settleRequestsTaken = 0
    package let signals = _SignalRegistry()

    package static let logger = Logger(label: "mainline.loop")

    /// - Parameter recorderClock: The loop's clock in nanoseconds, for the probe of its phases (the flight recorder,
    ///   the instruments): `nil` for real time (`CLOCK_MONOTONIC`), or the virtual time the loop keeps.
    package nonisolated init(
        budgets: LoopBudgets = .default,
        loopName: String,
        recorderClock: (@Sendable () -> UInt64)? = nil
    ) {
        self.budgets = budgets
        scheduler = _LoopScheduler(budgets: budgets, loopName: loopName, clock: recorderClock)
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

    // MARK: State the drivers read

    /// The deadline of the earliest scheduled timer.
    package var nextDeadline: LoopInstant? { timers.nextDeadline }

    /// The number of scheduled timers.
    package var scheduledTimerCount: Int { timers.count }

    /// How many timers have been scheduled so far: `TestLoop`'s async stepping compares it across a main-queue round
    /// to see whether a task it woke came back to wait on a timer (a clock sleep).
    @exclusivity(unchecked) package internal(set) var timersArmed = 0

    /// How many posts wait for a later post phase (a job that is running is no longer waiting).
    var postsWaitingCount: Int { posts.pendingOnLoop }

    /// How many settle notifications have been delivered so far.
    package var settleDeliveries: Int { settleQueue.deliveries }

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
    package func mustRunPostsBeforeBlocking() -> Bool { scheduler.mustRunPostsBeforeBlocking() }

    // MARK: Phases

    /// Phase 2: runs posted work, at most one budget's worth. Returns how many jobs ran.
    ///
    /// A phase runs one snapshot of the post queue: what is left of the previous snapshot (when the budget cut it
    /// short), or else everything posted so far. Work posted while the phase runs, including from the loop itself,
    /// waits for the next iteration, after this one's settle phase.
    @discardableResult
    package func runPosts() -> Int {
        _RunningLoop.with(owner) { runPosts(limit: budgets.postsPerIteration) }
    }

    /// Runs at most `limit` posted jobs as the phase `phase` (`.drainingPosts` while shutting down).
    package func runPosts(limit: Int, phase: _LoopProbe.Kind = .posts) -> Int {
        // Publishes what ran: producers count the rest as pending. (A main-actor loop shuts down in the first post
        // phase that finds the queue closed — its driver checks `posts.closed` — rather than over later iterations as
        // an `EventLoop` does: its shutdown settles and runs hooks on the main actor; see `shutDown()`.)
        defer { posts.endPhase() }
        // Main-actor jobs with their isolation erased (`_JobQueue.mainActorJob`); the core runs on the main actor. The
        // clock is read only while draining with a deadline.
        return scheduler.runPosts(limit: limit, now: { self.clock?() ?? _MonotonicClock.now() }, phase: phase)
    }

    /// Runs the handlers of `signal`.
    package func deliverSignal(_ signal: LoopSignal) {
        let probe = scheduler.probe
        var run = probe.begin(.signal)
        probe.willRun(&run, site: nil)
        _RunningLoop.with(owner) { signals.deliver(signal) }
        probe.end(&run, count: 1)
    }

}
