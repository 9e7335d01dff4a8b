/// What every Mainline loop offers — `MainLoop`, `TestLoop` and a secondary `EventLoop` alike: posting from any
/// thread, an idle phase, timers on the loop's clock, stopping, and a snapshot.
///
/// A `SerialLoop` runs the work it is given one piece at a time, on its own isolation: the main actor for the
/// main-actor loops (``Loop`` refines this protocol), the loop's own thread for an `EventLoop`. Write code against
/// `SerialLoop` when it only schedules, posts and stops — a retry policy, a watchdog, a rate limiter — and should run
/// on any loop; take ``Loop`` (or a concrete loop) when it needs the main actor, the settle phase or signals.
///
/// ```swift
/// /// Arms a timeout on whichever loop it is given; the handle cancels it from any thread.
/// @MainActor
/// func armTimeout<L: SerialLoop>(on loop: L, after delay: Duration, _ onTimeout: L.TimerJob) -> L.Scheduled {
///     loop.schedule(after: delay, onTimeout)
/// }
///
/// let onMain = armTimeout(on: MainLoop.main, after: .seconds(5)) { model.timedOut() }   // runs on the main actor
/// let onIO = armTimeout(on: ioLoop, after: .seconds(5)) { connection.close() }          // runs on ioLoop's thread
/// ```
///
/// **Threading.** ``post(_:fileID:line:)``, ``tryPost(_:fileID:line:)``, ``whenIdle(_:fileID:line:)``, ``stop()`` and ``stop(drainDeadline:)`` are
/// thread-safe on every loop. ``now``, the `schedule` methods and ``snapshot()`` must be called on the main actor
/// *through this protocol*; a loop may allow more — `EventLoop`'s are thread-safe — and says so on its own members.
/// The handles the `schedule` methods return are ``ScheduledWork``: cancellable from any thread on every loop.
///
/// **Why the bodies are associated types.** The loops differ in one thing: where a body runs. A main-actor loop runs
/// `@MainActor` bodies, and its timer bodies need not be `Sendable` (they are created, run and released on the main
/// actor); an `EventLoop` runs nonisolated `@Sendable` bodies on its thread. Swift has no closure type that is generic
/// over its isolation and still callable synchronously (`@isolated(any)` functions must be awaited), so the protocol
/// names each body type — ``Job``, `TimerJob`, `RepeatingJob` — and each loop fixes them; ``Loop`` fixes them to
/// the main actor, which keeps every existing `any Loop` call site as it was. The alternative — one protocol over
/// `@Sendable` nonisolated bodies with main-actor overloads on ``Loop`` — would make every closure passed to a
/// main-actor loop ambiguous between two overloads, and would let a main-actor loop run bodies that cannot touch the
/// main actor. For the same reason the main-actor-only requirements are marked `@MainActor` here: Swift cannot say
/// "on the loop's own isolation" in a protocol whose conformers differ, so the requirement states the strictest rule
/// any conformer needs, and a conformer that needs less (`EventLoop`) satisfies it with thread-safe members.
///
/// **What every loop promises** (checked by one scenario suite run against all three):
/// - Bodies posted from one thread run in the order they were posted, each exactly once.
/// - Timers fire in deadline order; timers with equal deadlines in the order they were scheduled. A deadline in the
///   past fires in the next timer phase, never synchronously or in the phase that is running.
/// - A repeating timer keeps a fixed rate, skipping (not bunching) the firings the loop reached late.
/// - ``ScheduledWork/cancel()`` is thread-safe, with one guarantee on every loop (see ``ScheduledWork``).
/// - After ``stop()`` posts are refused; work already posted still runs (until the drain deadline of
///   ``stop(drainDeadline:)``, after which the rest is released unrun and reported); timers are cancelled.
/// - An idle body runs once, when an iteration has nothing else pending.
public protocol SerialLoop: AnyObject, Sendable {
    /// What ``post(_:fileID:line:)``, ``tryPost(_:fileID:line:)`` and ``whenIdle(_:fileID:line:)`` run: `@MainActor @Sendable () -> Void` on a main-actor
    /// loop, `@Sendable () -> Void` (on the loop's thread) on an `EventLoop`. `Sendable`, because it is handed over
    /// from any thread.
    associatedtype Job: Sendable

    /// What ``schedule(after:fileID:line:_:)`` and ``schedule(at:fileID:line:_:)`` run: `@MainActor () -> Void` on a main-actor loop,
    /// `@Sendable () -> Void` on an `EventLoop`.
    associatedtype TimerJob

    /// What ``scheduleRepeating(every:fileID:line:_:)`` runs; it receives its handle, so that it can cancel itself.
    associatedtype RepeatingJob

    /// The handle of a scheduled callback.
    associatedtype Scheduled: ScheduledWork

    /// Runs `body` on the loop, soon.
    ///
    /// Thread-safe; never blocks (beyond a short critical section) and never runs `body` synchronously. Bodies posted
    /// from one thread run in the order they were posted, each exactly once. A body posted from the loop itself runs
    /// in a later iteration.
    ///
    /// Call it as `loop.post { … }` (``post(_:fileID:line:)``), which passes the caller's site; a loop that wraps
    /// another forwards `site`.
    ///
    /// - Parameters:
    ///   - body: The work to run on the loop.
    ///   - site: Where the work comes from: kept with the job for snapshots, the flight recorder and stall reports.
    /// - Returns: `true` if `body` will run; `false` if the loop has stopped or is full
    ///   (``LoopBudgets/maxPendingPosts``), in which case `body` is released without running.
    @discardableResult
    func post(_ body: Job, from site: LoopSite) -> Bool

    /// Runs `body` on the loop, soon — or says why it will not.
    ///
    /// Thread-safe; otherwise exactly ``post(_:from:)``, for producers that shed or retry when the loop is full. Call
    /// it as `loop.tryPost { … }` (``tryPost(_:fileID:line:)``).
    ///
    /// - Parameters:
    ///   - body: The work to run.
    ///   - site: Where the work comes from.
    /// - Returns: ``PostResult/accepted`` if `body` will run; ``PostResult/full`` when the loop already holds
    ///   ``LoopBudgets/maxPendingPosts`` posts, ``PostResult/stopped`` after ``stop()``; then `body` is released
    ///   without running.
    func tryPost(_ body: Job, from site: LoopSite) -> PostResult

    /// Runs `body` once, on the loop, as soon as an iteration has nothing else pending: no posts waiting, nothing
    /// pending for settle, no timer due now — right before the loop would block for I/O or the next timer.
    /// Android's `IdleHandler` and GLib's idle sources, one-shot.
    ///
    /// Thread-safe. Bodies run in registration order, in the idle phase that follows the rest of an iteration
    /// (DESIGN.md §2, phase 5); what a body posts or schedules runs in the next iteration, and the loop does not
    /// block while it is pending.
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
    /// Call it as `loop.whenIdle { … }` (``whenIdle(_:fileID:line:)``).
    ///
    /// - Parameters:
    ///   - body: The work to run when the loop is idle.
    ///   - site: Where the work comes from.
    /// - Returns: The registration, for cancelling (thread-safe) or checking whether `body` ran.
    /// - Complexity: O(1) to register; O(n) in the pending idle bodies to cancel. An iteration with no idle body
    ///   registered pays one atomic load; posts pay nothing.
    @discardableResult
    func whenIdle(_ body: Job, from site: LoopSite) -> IdleRegistration

    /// Stops the loop. Thread-safe and idempotent.
    ///
    /// From this call on, `post` returns `false`. Work already posted still runs, then (on a main-actor loop)
    /// pending settle notifications are delivered; timers are cancelled, and the loop releases everything it opened.
    func stop()

    /// Stops the loop, running already-posted work only until `drainDeadline` has passed; what is still waiting
    /// then is released unrun and reported (log and `mainline_loop_posts_discarded`). Thread-safe; the first stop
    /// decides.
    ///
    /// - Parameter drainDeadline: How long from now posted work may still start; zero or less runs none.
    func stop(drainDeadline: Duration)

    /// The loop's monotonic clock: real time on `MainLoop` and `EventLoop` (where it is thread-safe), virtual
    /// time on `TestLoop`.
    @MainActor var now: LoopInstant { get }

    /// The loop's clock as a Swift `Clock`: its ``LoopClock/now`` is this loop's ``now``, and sleeping on it arms one
    /// of this loop's timers, so `Task.sleep(for:clock:)` on it is woken by the loop — in virtual time on `TestLoop`.
    /// Thread-safe.
    ///
    /// ```swift
    /// try await Task.sleep(for: .seconds(1), clock: loop.clock)
    /// ```
    var clock: LoopClock { get }

    /// Runs `body` once, on the loop, when `delay` has passed.
    ///
    /// - Parameters:
    ///   - delay: How long from ``now``; a negative delay counts as zero. Even a zero delay never runs `body`
    ///     synchronously or in the current timer phase: it runs in the next iteration at the earliest.
    ///   - site: Where the timer was scheduled (`loop.schedule(after:) { … }` passes the caller's).
    ///   - body: The work to run.
    /// - Returns: The handle, for cancelling (from any thread). On a stopped loop it comes back already cancelled.
    /// - Complexity: O(log n) in the number of scheduled timers.
    @MainActor @discardableResult
    func schedule(after delay: Duration, from site: LoopSite, _ body: TimerJob) -> Scheduled

    /// Runs `body` once, on the loop, at `deadline` on the loop's clock (``now``).
    ///
    /// Timers with equal deadlines fire in the order they were scheduled, so several callbacks scheduled for one
    /// computed deadline keep their order. A deadline in the past fires in the next timer phase — never
    /// synchronously, never in the timer phase that is running.
    ///
    /// ```swift
    /// let frame = loop.now + .milliseconds(16)
    /// loop.schedule(at: frame) { render() }
    /// loop.schedule(at: frame) { present() }   // fires right after render()
    /// ```
    ///
    /// - Parameters:
    ///   - deadline: When to fire.
    ///   - site: Where the timer was scheduled (`loop.schedule(at:) { … }` passes the caller's).
    ///   - body: The work to run.
    /// - Returns: The handle, for cancelling (from any thread). On a stopped loop it comes back already cancelled.
    /// - Complexity: O(log n) in the number of scheduled timers.
    @MainActor @discardableResult
    func schedule(at deadline: LoopInstant, from site: LoopSite, _ body: TimerJob) -> Scheduled

    /// Runs `body` every `interval`, on the loop, starting one `interval` from now, at a fixed rate.
    ///
    /// Firing *k* is due at `start + k × interval`; firings the loop reaches late are skipped rather than run back to
    /// back, and counted in the handle's `skippedFirings`.
    ///
    /// - Parameters:
    ///   - interval: The period. Must be positive: anything else is reported to ``Diagnostics`` and treated as
    ///     one nanosecond.
    ///   - site: Where the timer was scheduled (`loop.scheduleRepeating(every:) { … }` passes the caller's).
    ///   - body: The work to run; it receives the handle, so it can cancel itself.
    /// - Returns: The handle, for cancelling (from any thread). On a stopped loop it comes back already cancelled.
    /// - Complexity: O(log n) per firing in the number of scheduled timers.
    @MainActor @discardableResult
    func scheduleRepeating(every interval: Duration, from site: LoopSite, _ body: RepeatingJob) -> Scheduled

    /// What the loop holds and has done now: pending posts, timers (with their labels), settle notifications, the
    /// iteration and phase it is in, its counters, its state and ``now``.
    ///
    /// On a main-actor loop, from any other thread in async code, `await loop.snapshot()`: the call hops onto the
    /// main actor — which the main loop serves in every hosting mode, so the snapshot is taken inside the loop — and
    /// works on a stopped loop too. An `EventLoop`'s snapshot is thread-safe. Loops that keep no such books
    /// (``Loop``'s default implementation) report their ``now`` only, as `running`, with everything else empty or zero.
    ///
    /// ```swift
    /// // On a SwiftNIO event loop, answering a DEBUG command:
    /// let promise = context.eventLoop.makePromise(of: String.self)
    /// promise.completeWithTask { await MainLoop.main.snapshot().description }
    /// ```
    ///
    /// - Returns: The snapshot; see ``LoopSnapshot`` for how to read it.
    @MainActor
    func snapshot() -> LoopSnapshot
}
