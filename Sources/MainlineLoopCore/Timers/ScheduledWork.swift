/// The handle of a callback scheduled on a loop's clock, whatever the loop: what ``SerialLoop``'s `schedule` methods
/// return.
///
/// All operations on `ScheduledWork` are thread-safe.
///
/// ``ScheduledTask`` (main-actor loops) and `EventLoop.Scheduled` (secondary loops) conform, with one guarantee for
/// ``cancel()``: the loop commits each firing under the lock `cancel()` takes, so exactly one of them wins. Once
/// `cancel()` has returned, on any thread, either ``isCancelled`` is `true` and the body never starts again, or the
/// loop had already committed that firing — it has run, is running, or starts right away. For a repeating callback, a
/// firing committed before `cancel()` still runs; no later one does.
///
/// ```swift
/// let timeout = loop.schedule(after: .seconds(5)) { connection.close() }
/// // … on any thread, when the answer arrived in time:
/// timeout.cancel()
/// ```
public protocol ScheduledWork: AnyObject, Sendable {
    /// The time between firings of a repeating callback; `nil` for one that fires once.
    var interval: Duration? { get }

    /// Whether the callback will still fire (it has neither fired for the last time nor been cancelled).
    var isScheduled: Bool { get }

    /// Whether ``cancel()`` (or the loop's shutdown) stopped the callback.
    var isCancelled: Bool { get }

    /// Stops the callback: it does not fire again, and its body (with everything it captured) is released.
    /// Idempotent; safe to call from inside the callback itself. See ``ScheduledWork`` for what is guaranteed once it
    /// returns.
    func cancel()
}

extension ScheduledTask: ScheduledWork {}
