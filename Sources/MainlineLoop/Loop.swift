/// What every Mainline loop offers: posting from any thread, timers, the settle phase and signals, all
/// delivered on the main actor.
///
/// `post(_:)`, `whenIdle(_:)` and `stop()` are thread-safe; everything else must be called on the main actor.
///
/// ``MainLoop`` (the process's real main loop) and `TestLoop` (virtual time, from `MainlineTesting`) conform.
/// Code in the layers above takes `loop: any Loop = MainLoop.main`, so tests hand it a `TestLoop` and drive
/// time by hand:
///
/// ```swift
/// @MainActor
/// final class Heartbeat {
///     private var task: ScheduledTask?
///     private(set) var beats = 0
///
///     init(loop: any Loop = MainLoop.main) {
///         task = loop.scheduleRepeating(every: .seconds(1)) { [weak self] _ in self?.beats += 1 }
///     }
/// }
///
/// // In a test:
/// let loop = TestLoop()
/// let heartbeat = Heartbeat(loop: loop)
/// loop.advance(by: .seconds(3))
/// #expect(heartbeat.beats == 3)
/// ```
///
/// One iteration of a loop runs, in order: due **timers** (deadline order, ties in scheduling order);
/// **posted work** and I/O (bounded by ``LoopBudgets/postsPerIteration``); **settle** (pending
/// ``SettleNotification``s by height, in rounds bounded by ``LoopBudgets/settleRoundsPerIteration``); then, when
/// that left nothing pending, **idle** bodies (``whenIdle(_:)``), right before the loop blocks.
/// A loop never blocks while posted work or a settle notification is pending.
public protocol Loop: AnyObject, Sendable {
    /// Runs `body` on the loop, on the main actor, soon.
    ///
    /// Thread-safe; never blocks (beyond a short critical section) and never runs `body` synchronously.
    /// Bodies posted from one thread run in the order they were posted, each exactly once. A body posted from
    /// the loop itself runs in a later iteration, after the current iteration's settle phase.
    ///
    /// - Parameter body: The work to run on the loop.
    /// - Returns: `true` if `body` will run; `false` if the loop has stopped or is full
    ///   (``LoopBudgets/maxPendingPosts``), in which case `body` is released without running.
    @discardableResult
    func post(_ body: @escaping @MainActor @Sendable () -> Void) -> Bool

    /// Runs `body` on the loop, on the main actor, soon — or says why it will not.
    ///
    /// Thread-safe; otherwise exactly ``post(_:)``, for producers that shed or retry when the loop is full.
    ///
    /// - Parameter body: The work to run.
    /// - Returns: ``PostResult/accepted`` if `body` will run; ``PostResult/full`` when the loop already holds
    ///   ``LoopBudgets/maxPendingPosts`` posts, ``PostResult/stopped`` after ``stop()``; then `body` is released
    ///   without running.
    func tryPost(_ body: @escaping @MainActor @Sendable () -> Void) -> PostResult

    /// Stops the loop. Thread-safe and idempotent.
    ///
    /// From this call on, `post` returns `false`. Work already posted still runs, then pending settle
    /// notifications are delivered, timers are cancelled, and the loop releases everything it opened.
    func stop()

    /// Stops the loop, running already-posted work only until `drainDeadline` has passed; what is still waiting
    /// then is released unrun and reported (log and `mainline_loop_posts_discarded`). Thread-safe; the first stop
    /// decides.
    ///
    /// - Parameter drainDeadline: How long from now posted work may still start; zero or less runs none.
    func stop(drainDeadline: Duration)

    /// Runs `body` once, on the loop (the main actor), as soon as an iteration has nothing else pending: no posts
    /// waiting, nothing pending for settle, no timer due now — right before the loop would block for I/O or the next
    /// timer. Android's `IdleHandler` and GLib's idle sources, one-shot.
    ///
    /// Thread-safe. Bodies run in registration order, in the idle phase that follows the rest of an iteration
    /// (DESIGN.md §2, phase 5); what a body posts, schedules or settles runs in the next iteration, and the loop does
    /// not block while it is pending.
    ///
    /// **One-shot, and re-registering never spins.** A body runs once, then its registration is spent. For idle work
    /// that repeats (compact a cache after every burst), register again from the body: a body registered while the
    /// idle phase runs waits for the *next* idle phase, and a registration made on the loop (from a body, a post, a
    /// timer) does not wake it. So a re-registering body runs at most once per iteration, and a loop with nothing but
    /// such a body blocks — at zero CPU — until something else (a post, a timer, I/O) gives it another iteration.
    /// GLib's repeating idle sources (`G_SOURCE_CONTINUE`) spin the loop at 100% CPU instead; Mainline offers no
    /// repeating form for that reason. A registration from anywhere else (another thread, a task) wakes the loop.
    ///
    /// **Stopping.** Idle bodies still pending when the loop shuts down are released unrun (a stopping loop is never
    /// idle: it drains); registering on a loop that has shut down returns a spent registration.
    ///
    /// ```swift
    /// // From any thread, after handing the loop a burst of posts:
    /// loop.whenIdle { progress.flush() }   // runs once all of them (and what they settled) have run
    /// ```
    ///
    /// - Parameter body: The work to run when the loop is idle.
    /// - Returns: The registration, for cancelling (thread-safe) or checking whether `body` ran.
    /// - Complexity: O(1) to register; O(n) in the pending idle bodies to cancel. An iteration with no idle body
    ///   registered pays one atomic load; posts pay nothing.
    @discardableResult
    func whenIdle(_ body: @escaping @MainActor @Sendable () -> Void) -> IdleRegistration

    /// The loop's monotonic clock.
    @MainActor var now: LoopInstant { get }

    /// The work budgets of one iteration.
    @MainActor var budgets: LoopBudgets { get set }

    /// Runs `body` once, on the main actor, when `delay` has passed.
    ///
    /// - Parameters:
    ///   - delay: How long from ``now``; a negative delay counts as zero. Even a zero delay never runs `body`
    ///     synchronously or in the current timer phase: it runs in the next iteration at the earliest.
    ///   - body: The work to run.
    /// - Returns: The task, for cancelling. On a stopped loop the task comes back already cancelled.
    /// - Complexity: O(log n) in the number of scheduled timers.
    @MainActor @discardableResult
    func schedule(after delay: Duration, _ body: @escaping @MainActor () -> Void) -> ScheduledTask

    /// Runs `body` every `interval`, on the main actor, starting one `interval` from now, at a fixed rate.
    ///
    /// Firings the loop reaches late are skipped rather than run back to back (see ``ScheduledTask``).
    ///
    /// - Parameters:
    ///   - interval: The period. Must be positive: anything else is reported to ``Diagnostics`` and treated as
    ///     one nanosecond.
    ///   - body: The work to run; it receives the task, so it can cancel itself.
    /// - Returns: The task, for cancelling. On a stopped loop the task comes back already cancelled.
    /// - Complexity: O(log n) per firing in the number of scheduled timers.
    @MainActor @discardableResult
    func scheduleRepeating(
        every interval: Duration,
        _ body: @escaping @MainActor (ScheduledTask) -> Void
    )
        -> ScheduledTask

    /// Marks `notification` pending for the settle phase of the current iteration (or of the next one, when
    /// called outside an iteration).
    ///
    /// - Parameter notification: The notification to deliver.
    /// - Returns: `true` if it is now pending; `false` if it already was (the requests coalesce into one
    ///   delivery) or the loop has stopped.
    @MainActor @discardableResult
    func requestSettle(_ notification: SettleNotification) -> Bool

    /// Runs `handler` on the main actor whenever `signal` arrives, until the registration is cancelled.
    ///
    /// - Parameters:
    ///   - signal: The signal to handle.
    ///   - handler: The work to run; it receives the signal.
    /// - Returns: The registration, for cancelling.
    @MainActor @discardableResult
    func onSignal(_ signal: LoopSignal, _ handler: @escaping @MainActor (LoopSignal) -> Void) -> SignalRegistration

    /// Runs `body` on the loop, on the main actor, soon; a stall watchdog reports it as `label`.
    ///
    /// Thread-safe; otherwise exactly ``post(_:)``. A labelled post costs one allocation more than an unlabelled
    /// one. Loops without labels (the default implementation) ignore `label`.
    ///
    /// - Parameters:
    ///   - label: What the work is called in stall reports (`LoopWatchdog`); a static string, so that labels cost
    ///     nothing to copy and stay a small, fixed set of metric dimensions.
    ///   - body: The work to run.
    /// - Returns: `true` if `body` will run; `false` if the loop has stopped.
    @discardableResult
    func post(label: StaticString, _ body: @escaping @MainActor @Sendable () -> Void) -> Bool

    /// Runs `body` once when `delay` has passed, as ``schedule(after:_:)``; a stall watchdog reports it as `label`.
    ///
    /// - Parameters:
    ///   - delay: How long from ``now``.
    ///   - label: What the timer is called in stall reports.
    ///   - body: The work to run.
    /// - Returns: The task, for cancelling.
    @MainActor @discardableResult
    func schedule(after delay: Duration, label: StaticString, _ body: @escaping @MainActor () -> Void) -> ScheduledTask

    /// Runs `body` every `interval`, as ``scheduleRepeating(every:_:)``; a stall watchdog reports it as `label`.
    ///
    /// - Parameters:
    ///   - interval: The period; must be positive.
    ///   - label: What the timer is called in stall reports.
    ///   - body: The work to run; it receives the task.
    /// - Returns: The task, for cancelling.
    @MainActor @discardableResult
    func scheduleRepeating(
        every interval: Duration,
        label: StaticString,
        _ body: @escaping @MainActor (ScheduledTask) -> Void
    ) -> ScheduledTask

    /// What the loop holds and has done now: pending posts, timers (with their labels), settle notifications, the
    /// iteration and phase it is in, its counters, its state and ``now``. Must be called on the main actor.
    ///
    /// From any other thread, in async code, `await loop.snapshot()`: the call hops onto the main actor — which the
    /// main loop serves in every hosting mode, so the snapshot is taken inside the loop — and works on a stopped loop
    /// too. A loop whose main actor is blocked answers once it is free again.
    ///
    /// ```swift
    /// // On a SwiftNIO event loop, answering a DEBUG command:
    /// let promise = context.eventLoop.makePromise(of: String.self)
    /// promise.completeWithTask { await MainLoop.main.snapshot().description }
    /// ```
    ///
    /// Loops that keep no such books (the default implementation) report their ``now`` only, as `running`, with
    /// everything else empty or zero.
    ///
    /// - Returns: The snapshot; see ``LoopSnapshot`` for how to read it.
    @MainActor
    func snapshot() -> LoopSnapshot
}

extension Loop {
    /// Posts `body`, cancellably: the default for loops that have no idle phase, where "idle" can only mean "after
    /// what was posted before". See ``Loop/whenIdle(_:)``.
    ///
    /// - Parameter body: The work to run.
    /// - Returns: The registration, for cancelling; spent at once when the post is refused.
    @discardableResult
    public func whenIdle(_ body: @escaping @MainActor @Sendable () -> Void) -> IdleRegistration {
        let queue = _IdleQueue()
        let (registration, _) = queue.add(.mainActor(body), wakes: false)
        let posted = post {
            for registration in queue.takeAll() {
                if case .mainActor(let body) = queue.take(registration) { body() }
            }
        }
        if !posted { queue.close() }
        return registration
    }

    /// Posts `body` and answers ``PostResult/accepted`` or ``PostResult/stopped``: the default for loops that have
    /// no limit on pending posts. See ``Loop/tryPost(_:)``.
    ///
    /// - Parameter body: The work to run.
    /// - Returns: What became of `body`.
    public func tryPost(_ body: @escaping @MainActor @Sendable () -> Void) -> PostResult {
        post(body) ? .accepted : .stopped
    }

    /// Stops the loop, ignoring the deadline: the default for loops that always drain completely.
    /// See ``Loop/stop(drainDeadline:)``.
    ///
    /// - Parameter drainDeadline: Ignored.
    public func stop(drainDeadline: Duration) {
        stop()
    }

    /// Posts `body`, ignoring `label`: the default for loops that keep no labels. See ``Loop/post(label:_:)``.
    ///
    /// - Parameters:
    ///   - label: Ignored.
    ///   - body: The work to run.
    /// - Returns: What ``Loop/post(_:)`` returns.
    @discardableResult
    public func post(label: StaticString, _ body: @escaping @MainActor @Sendable () -> Void) -> Bool {
        post(body)
    }

    /// Schedules `body`, ignoring `label`: the default for loops that keep no labels.
    ///
    /// - Parameters:
    ///   - delay: How long from now.
    ///   - label: Ignored.
    ///   - body: The work to run.
    /// - Returns: What ``Loop/schedule(after:_:)`` returns.
    @MainActor @discardableResult
    public func schedule(
        after delay: Duration,
        label: StaticString,
        _ body: @escaping @MainActor () -> Void
    ) -> ScheduledTask {
        schedule(after: delay, body)
    }

    /// A snapshot with ``now`` only: the default for loops that keep no books. See ``Loop/snapshot()``.
    ///
    /// - Returns: A `running` snapshot of ``now``, named after the loop's type, with no pending work, no timers and
    ///   zero counters.
    @MainActor
    public func snapshot() -> LoopSnapshot {
        LoopSnapshot(loop: "\(Self.self)", state: .running, now: now)
    }

    /// Schedules `body` repeatedly, ignoring `label`: the default for loops that keep no labels.
    ///
    /// - Parameters:
    ///   - interval: The period.
    ///   - label: Ignored.
    ///   - body: The work to run.
    /// - Returns: What ``Loop/scheduleRepeating(every:_:)`` returns.
    @MainActor @discardableResult
    public func scheduleRepeating(
        every interval: Duration,
        label: StaticString,
        _ body: @escaping @MainActor (ScheduledTask) -> Void
    ) -> ScheduledTask {
        scheduleRepeating(every: interval, body)
    }
}

/// A loop built on a `_LoopCore` (`MainLoop`, `TestLoop`): how other layers of the package reach the core, for
/// example to report a named mailbox's drops through the loop's instrumentation.
///
/// All operations on conforming types' ``core`` reference are thread-safe; the core itself is main-actor isolated.
package protocol _CoreOwningLoop: Loop {
    /// The loop's scheduling core.
    var core: _LoopCore { get }
}
