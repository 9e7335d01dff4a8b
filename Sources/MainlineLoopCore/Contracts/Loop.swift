/// A loop that runs everything on the main actor: posting from any thread, timers, the settle phase and signals.
///
/// `post(_:)`, `tryPost(_:)`, `whenIdle(_:)`, `stop()` and the handles' `cancel()` are thread-safe; everything else
/// must be called on the main actor.
///
/// `Loop` refines ``SerialLoop`` — the contract it shares with a secondary `EventLoop` — by fixing every body to the
/// main actor (a timer's body need not be `Sendable`: it is created, run and released there) and the handle to
/// ``ScheduledTask``, and adds what only a main-actor loop has: the settle phase, signals, budgets and labels.
///
/// `MainLoop` (the process's real main loop) and `TestLoop` (virtual time, from `MainlineTesting`) conform.
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
/// that left nothing pending, **idle** bodies (``SerialLoop/whenIdle(_:fileID:line:)``), right before the loop blocks.
/// A loop never blocks while posted work or a settle notification is pending.
///
/// **A loop of your own** (a wrapper around `MainLoop.main` that logs, say) gets the same behaviour from everything the
/// package builds on it, because the package reaches a loop only through this protocol — never by casting to
/// `MainLoop` or `TestLoop`. The one thing a loop of your own goes without is the metrics of the scheduling core
/// (`MainLoop.instrument(_:)`): a named mailbox's drops are counted only on a loop that runs on it. What else a loop
/// cannot do, its default says: a loop that does not implement ``onShutdown(_:)`` cannot
/// run shutdown work, which the default reports to `Diagnostics` as `loopWithoutShutdownHooks` when something (a
/// `.suspend` `BoundedMailbox`) asks for it.
public protocol Loop: SerialLoop
where
    Job == @MainActor @Sendable () -> Void,
    TimerJob == @MainActor () -> Void,
    RepeatingJob == @MainActor (ScheduledTask) -> Void,
    Scheduled == ScheduledTask
{
    /// The work budgets of one iteration.
    @MainActor var budgets: LoopBudgets { get set }

    /// Marks `notification` pending for the settle phase of the current iteration (or of the next one, when
    /// called outside an iteration).
    ///
    /// - Parameter notification: The notification to deliver.
    /// - Returns: `true` if it is now pending; `false` if it already was (the requests coalesce into one
    ///   delivery) or the loop has stopped.
    @MainActor @discardableResult
    func requestSettle(_ notification: SettleNotification) -> Bool

    /// Asks, from any thread, for `request`'s notification to be marked pending in the settle phase of the iteration
    /// that sees it — the current one when the loop is running, the next one when it sleeps (then it wakes once).
    ///
    /// Thread-safe; never blocks and never delivers synchronously. The loop resolves the request on the main actor
    /// (``SettleRequest/notificationToSettle()``) and then follows ``requestSettle(_:)``'s rules: requests of one
    /// notification coalesce into one delivery, by height, in rounds. `MainLoop` and `TestLoop` take the request
    /// without posting a job (one compare-and-swap, and a wake-up only when the loop sleeps); the default for other
    /// loops posts one job that makes the request.
    ///
    /// - Parameter request: What to settle; a ``SettleNotification`` is its own request.
    /// - Returns: `true` if the loop will resolve the request; `false` if the loop has stopped (it never will).
    @discardableResult
    func requestSettle(fromAnyThread request: any SettleRequest) -> Bool

    /// Runs `handler` on the main actor whenever `signal` arrives, until the registration is cancelled.
    ///
    /// - Parameters:
    ///   - signal: The signal to handle.
    ///   - handler: The work to run; it receives the signal.
    /// - Returns: The registration, for cancelling.
    @MainActor @discardableResult
    func onSignal(_ signal: LoopSignal, _ handler: @escaping @MainActor (LoopSignal) -> Void) -> SignalRegistration

    /// Registers `body` to run on the loop when it stops, after the work already posted and settle (see
    /// ``ShutdownRegistration``).
    ///
    /// Must be called on the main actor. What the package builds on a loop relies on it: a `BoundedMailbox` with the
    /// `.suspend` policy fails its waiting senders (`LoopStopped`) from a shutdown hook, so that no sender waits forever
    /// on a loop that is gone. `MainLoop` and `TestLoop` implement it. **A loop of your own should too** — a loop that
    /// wraps another forwards it. The default implementation cannot know when the loop stops: it reports
    /// `loopWithoutShutdownHooks` to `Diagnostics` (so the first `.suspend` mailbox created on such a loop says so at
    /// its `init`) and returns a registration that will never run.
    ///
    /// - Parameter body: The work to run at shutdown.
    /// - Returns: The registration, for cancelling. On a stopped loop it comes back already cancelled.
    @MainActor @discardableResult
    func onShutdown(_ body: @escaping @MainActor () -> Void) -> ShutdownRegistration

}

extension Loop {
    /// Runs `body` once at `deadline`, as ``SerialLoop/schedule(after:from:_:)`` with the time left until then: the
    /// default for loops that schedule by delay only. See ``SerialLoop/schedule(at:from:_:)``.
    ///
    /// - Parameters:
    ///   - deadline: When to fire; a deadline in the past fires in the next timer phase.
    ///   - site: Where the timer was scheduled.
    ///   - body: The work to run.
    /// - Returns: What ``SerialLoop/schedule(after:from:_:)`` returns.
    @MainActor @discardableResult
    public func schedule(
        at deadline: LoopInstant,
        from site: LoopSite,
        _ body: @escaping @MainActor () -> Void
    ) -> ScheduledTask {
        schedule(after: deadline - now, from: site, body)
    }

    /// Posts `body`, cancellably: the default for loops that have no idle phase, where "idle" can only mean "after
    /// what was posted before". See ``SerialLoop/whenIdle(_:from:)``.
    ///
    /// - Parameters:
    ///   - body: The work to run.
    ///   - site: Where the body was registered.
    /// - Returns: The registration, for cancelling; spent at once when the post is refused.
    @discardableResult
    public func whenIdle(_ body: @escaping @MainActor @Sendable () -> Void, from site: LoopSite) -> IdleRegistration {
        let queue = _IdleQueue()
        let (registration, _) = queue.add(.mainActor(body), site: site, wakes: false)
        let posted = post(
            {
                for registration in queue.takeAll() {
                    if case .mainActor(let body) = queue.take(registration) { body() }
                }
            },
            from: site
        )
        if !posted { queue.close() }
        return registration
    }

    /// Posts `body` and answers ``PostResult/accepted`` or ``PostResult/stopped``: the default for loops that have
    /// no limit on pending posts. See ``SerialLoop/tryPost(_:from:)``.
    ///
    /// - Parameters:
    ///   - body: The work to run.
    ///   - site: Where the work comes from.
    /// - Returns: What became of `body`.
    public func tryPost(_ body: @escaping @MainActor @Sendable () -> Void, from site: LoopSite) -> PostResult {
        post(body, from: site) ? .accepted : .stopped
    }

    /// Posts one job that resolves `request` and requests settle with it: the default for loops without a settle inbox
    /// of their own. Thread-safe. See ``Loop/requestSettle(fromAnyThread:)``.
    ///
    /// - Parameter request: What to settle.
    /// - Returns: `true` if the job was posted; `false` if the loop has stopped.
    @discardableResult
    public func requestSettle(fromAnyThread request: any SettleRequest) -> Bool {
        post(label: "settle request") {
            guard let notification = request.notificationToSettle() else { return }
            self.requestSettle(notification)
        }
    }

    /// Stops the loop, ignoring the deadline: the default for loops that always drain completely.
    /// See ``SerialLoop/stop(drainDeadline:)``.
    ///
    /// - Parameter drainDeadline: Ignored.
    public func stop(drainDeadline: Duration) {
        stop()
    }

    /// Runs `body` on the loop, on the main actor, soon; snapshots, the flight recorder and stall reports call it
    /// `label`. Thread-safe; otherwise exactly ``SerialLoop/post(_:fileID:line:)``, and it costs the same: the label
    /// rides in the job's site.
    ///
    /// - Parameters:
    ///   - label: What the work is called: a static string, so that labels cost nothing to copy and stay a small,
    ///     fixed set of metric dimensions (`mainline_loop_stalls`).
    ///   - fileID: The caller's file (leave the default).
    ///   - line: The caller's line (leave the default).
    ///   - body: The work to run.
    /// - Returns: `true` if `body` will run; `false` if the loop has stopped or is full.
    @discardableResult
    public func post(
        label: StaticString,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor @Sendable () -> Void
    ) -> Bool {
        post(body, from: LoopSite(label: label, fileID: fileID, line: line))
    }

    /// Runs `body` once when `delay` has passed, as ``SerialLoop/schedule(after:fileID:line:_:)``; snapshots, the
    /// flight recorder and stall reports call the timer `label`. Must be called on the main actor.
    ///
    /// - Parameters:
    ///   - delay: How long from ``SerialLoop/now``.
    ///   - label: What the timer is called.
    ///   - fileID: The caller's file (leave the default).
    ///   - line: The caller's line (leave the default).
    ///   - body: The work to run.
    /// - Returns: The task, for cancelling.
    @MainActor @discardableResult
    public func schedule(
        after delay: Duration,
        label: StaticString,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor () -> Void
    ) -> ScheduledTask {
        schedule(after: delay, from: LoopSite(label: label, fileID: fileID, line: line), body)
    }

    /// Runs `body` every `interval`, as ``SerialLoop/scheduleRepeating(every:fileID:line:_:)``; snapshots, the flight
    /// recorder and stall reports call the timer `label`. Must be called on the main actor.
    ///
    /// - Parameters:
    ///   - interval: The period; must be positive.
    ///   - label: What the timer is called.
    ///   - fileID: The caller's file (leave the default).
    ///   - line: The caller's line (leave the default).
    ///   - body: The work to run; it receives the task.
    /// - Returns: The task, for cancelling.
    @MainActor @discardableResult
    public func scheduleRepeating(
        every interval: Duration,
        label: StaticString,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor (ScheduledTask) -> Void
    ) -> ScheduledTask {
        scheduleRepeating(every: interval, from: LoopSite(label: label, fileID: fileID, line: line), body)
    }

    /// A snapshot with ``SerialLoop/now`` only: the default for loops that keep no books. See
    /// ``SerialLoop/snapshot()``.
    ///
    /// - Returns: A `running` snapshot of ``SerialLoop/now``, named after the loop's type, with no pending work, no
    ///   timers and zero counters.
    @MainActor
    public func snapshot() -> LoopSnapshot {
        LoopSnapshot(loop: "\(Self.self)", state: .running, now: now)
    }

    /// Reports `loopWithoutShutdownHooks` and returns a registration that will never run: the default for loops that
    /// cannot tell when they stop. See ``Loop/onShutdown(_:)``.
    ///
    /// - Parameter body: Never run.
    /// - Returns: A cancelled registration.
    @MainActor @discardableResult
    public func onShutdown(_ body: @escaping @MainActor () -> Void) -> ShutdownRegistration {
        Diagnostics.report(
            .loopWithoutShutdownHooks,
            "\(Self.self) does not implement Loop.onShutdown(_:), so work that must run when it stops never will (a BoundedMailbox with .suspend cannot fail its waiting senders: they wait until cancelled or given room). Implement onShutdown(_:) — a loop that wraps another forwards it — or use another overflow policy."
        )
        return ShutdownRegistration(loopKeepsNoHooks: ())
    }

}
