/// A callback scheduled on a main-actor loop's clock: once after a delay or at a deadline, or repeatedly at a
/// fixed rate.
///
/// All operations on `ScheduledTask` that are not marked `@MainActor` are thread-safe: ``cancel()``, ``isCancelled``,
/// ``isScheduled`` and ``interval`` may be used from any thread. ``deadline``, ``firings`` and ``skippedFirings``
/// must be read on the main actor.
///
/// Create one with ``SerialLoop/schedule(after:fileID:line:_:)``, ``SerialLoop/schedule(at:fileID:line:_:)`` or
/// ``SerialLoop/scheduleRepeating(every:fileID:line:_:)``. Dropping the task does not cancel it: the loop keeps it until it fires
/// or is cancelled.
///
/// ```swift
/// let timeout = loop.schedule(after: .seconds(5)) { print("gave up") }
/// // … the answer arrived in time, on the main actor or on any other thread:
/// timeout.cancel()
/// ```
///
/// A repeating task keeps a fixed rate: firing *k* is due at `start + k × interval`. When the loop was too busy
/// to fire on time and one or more deadlines have already passed, the task fires once and skips the ones it
/// missed rather than firing them back to back; ``skippedFirings`` counts them.
///
/// **Cancelling from another thread** has the same guarantee as `EventLoop.Scheduled.cancel()`: the loop commits each
/// firing under the same lock `cancel()` takes, so exactly one of them wins. Once `cancel()` has returned, either
/// ``isCancelled`` is `true` and the body never starts again, or the loop had already committed that firing — it has
/// run, is running, or starts right away. For a repeating task, a firing committed before `cancel()` still runs; no
/// later one does.
public final class ScheduledTask: @unchecked Sendable {
    // @unchecked Sendable: `interval` never changes; `state` is protected by `_TimerCancellations.lock` (the one lock
    // every main-actor loop's timers share); every other stored property is isolated to the main actor, which the
    // compiler checks.

    package enum Body {
        case once(@MainActor () -> Void)
        case repeating(@MainActor (ScheduledTask) -> Void)
    }

    /// The time between firings of a repeating task; `nil` for a task that fires once. Thread-safe.
    public let interval: Duration?

    // Unchecked exclusivity, here and below: main-actor state (or, for `state`, state under a lock) that no access
    // holds across a call out; the dynamic checks were a measurable part of scheduling a timer (Benchmarks/HISTORY.md,
    // "Speed").

    /// When the task fires next (for a task that has fired or was cancelled: when it was last due). Must be read on
    /// the main actor.
    @exclusivity(unchecked) @MainActor public internal(set) var deadline: LoopInstant

    /// How many firings a repeating task skipped because the loop reached them late. Must be read on the main actor.
    @exclusivity(unchecked) @MainActor public internal(set) var skippedFirings: Int = 0

    /// How many times the task has fired. Must be read on the main actor.
    @exclusivity(unchecked) @MainActor public internal(set) var firings: Int = 0

    /// Whether the task will fire, was fired or was cancelled (protected by `_TimerCancellations.lock`).
    @exclusivity(unchecked) private var state: _TimerState = .scheduled
    /// The callback; released (on the main actor) once the task has fired for the last time or was cancelled.
    @exclusivity(unchecked) @MainActor package var body: Body?
    /// Position in the scheduling order; ties between equal deadlines go to the lower sequence number.
    @exclusivity(unchecked) @MainActor package var sequence: UInt64 = 0
    /// The queue whose heap holds the task, read only while `isInHeap`: a queue clears `isInHeap` of every task it
    /// still holds before it goes (`_TimerQueue`'s isolated deinit), so the reference is never read once it dangles.
    // unowned(unsafe), not weak: a weak reference costs an atomic increment of the queue's side table per scheduled
    // timer and a decrement per freed task. Safe by the rule above.
    @exclusivity(unchecked) @MainActor package unowned(unsafe) var queue: _TimerQueue?
    /// Whether the task is a live entry of `queue`'s heap: the heap's own view of liveness, which only the loop changes
    /// (a cancellation from another thread reaches it through `_TimerCancellations`).
    @exclusivity(unchecked) @MainActor package var isInHeap = false

    /// Where the timer was scheduled, with its label if it was given one: what snapshots, the flight recorder and stall
    /// reports call it.
    public let site: LoopSite

    @MainActor
    package init(deadline: LoopInstant, interval: Duration?, site: LoopSite, body: Body) {
        self.deadline = deadline
        self.interval = interval
        self.site = site
        self.body = body
    }

    /// Whether the task will still fire (it has neither fired for the last time nor been cancelled). Thread-safe.
    public var isScheduled: Bool { _TimerCancellations.lock.withLock { state.isScheduled } }

    /// Whether ``cancel()`` (or the loop's shutdown) stopped the task. Thread-safe.
    public var isCancelled: Bool { _TimerCancellations.lock.withLock { state.isCancelled } }

    /// Stops the task: it does not fire again, and its callback (with everything it captured) is released on the main
    /// actor.
    ///
    /// Thread-safe and idempotent, and safe to call from inside the task's own callback. Cancelling a one-shot task
    /// that has already fired does nothing. Once `cancel()` returns, either the task is cancelled and its body never
    /// starts again, or the loop had already committed the firing (see ``ScheduledTask``).
    ///
    /// Called on the main actor (in the loop's callbacks, or any main-actor code), it releases the callback at once.
    /// Called on another thread, it only marks the task cancelled; the loop releases the callback on the main actor
    /// the next time it looks at its timers — in its next iteration at the latest, or when `TestLoop` is next
    /// advanced or asked for its timers — so that what the callback captured is never freed off the main actor.
    ///
    /// - Complexity: Amortized O(1); cancelled tasks are removed lazily and compacted in bulk.
    public func cancel() {
        if _RunningLoop.isOnMainActor {
            // Provably on the main actor: the work, now.
            _TimerCancellations.cancelOnLoop(self)
            return
        }
        let won = _TimerCancellations.lock.withLock {
            guard state.cancel() else { return false }
            _TimerCancellations.enqueueLocked(self)
            return true
        }
        if won { _TimerCancellations.didEnqueue() }
    }

    /// ``cancel()`` for a caller on the main actor inside the loop: releases the body and tells the heap now.
    @MainActor func cancel0() {
        guard _TimerCancellations.lock.withLock({ state.cancel() }) else { return }
        didCancel()
    }

    /// The loop's side of a cancellation that won (on the main actor): release the body, and count the task dead in its
    /// heap if it is still an entry there.
    @MainActor package func didCancel() {
        body = nil
        guard isInHeap else { return }
        isInHeap = false
        queue?.didCancel()
    }

    /// Takes one firing for the loop (see `_TimerState.commitFiring(repeating:)`). `false`: cancelled first.
    @MainActor package func commitFiring() -> Bool {
        let repeating = interval != nil
        return _TimerCancellations.lock.withLock { state.commitFiring(repeating: repeating) }
    }

    /// The task's state, for messages about impossible states.
    var stateDescription: String { _TimerCancellations.lock.withLock { "\(state)" } }
}

@available(*, unavailable, message: "ScheduledTask's body is main-actor isolated; hop to the loop to share it")
extension ScheduledTask.Body: Sendable {}
