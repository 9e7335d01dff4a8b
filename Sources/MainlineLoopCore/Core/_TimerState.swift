/// The life of one scheduled timer, as both kinds of loop keep it: the one state machine behind
/// ``ScheduledTask`` (main-actor loops) and `EventLoop.Scheduled` (secondary loops).
///
/// `_TimerState` is a value type and is **not** thread-safe: its owner keeps it under a lock (`ScheduledTask`'s
/// shared cancellation lock, an `EventLoop`'s timer lock), and every transition below runs under that lock. That lock
/// is what makes ``cancel()`` on one thread and ``commitFiring(repeating:)`` on the loop's thread linearizable: exactly
/// one of them wins a given firing.
///
/// ```
/// scheduled ──commitFiring(repeating: false)──▶ fired       (terminal)
/// scheduled ──commitFiring(repeating: true)───▶ scheduled   (one more firing committed)
/// scheduled ──cancel()───────────────────────▶ cancelled   (terminal)
/// ```
///
/// The guarantee callers document: once `cancel()` has returned on any thread, either it won — the body never starts
/// again — or the loop had already committed the firing (it has run, is running, or starts right away, whatever the
/// canceller does). For a repeating timer, a firing committed before `cancel()` still runs; no later one does.
package enum _TimerState: Sendable {
    /// Waiting for its deadline (a repeating timer between firings, or while its body runs).
    case scheduled
    /// A one-shot timer whose firing the loop committed.
    case fired
    /// Stopped by `cancel()` or by its loop's shutdown before a firing was committed.
    case cancelled

    /// Whether the timer will still fire.
    package var isScheduled: Bool { self == .scheduled }

    /// Whether `cancel()` (or shutdown) stopped the timer.
    package var isCancelled: Bool { self == .cancelled }

    /// Stops the timer unless a final firing was already committed.
    ///
    /// - Returns: `true` if this call stopped it (the caller now releases the body); `false` if it had already fired
    ///   for the last time or was cancelled before.
    package mutating func cancel() -> Bool {
        guard self == .scheduled else { return false }
        self = .cancelled
        return true
    }

    /// The loop takes one firing: a one-shot timer becomes `fired`, a repeating one stays `scheduled`.
    ///
    /// - Returns: `false` if the timer was cancelled first: the loop must not run the body.
    package mutating func commitFiring(repeating: Bool) -> Bool {
        guard self == .scheduled else { return false }
        if !repeating { self = .fired }
        return true
    }
}
