/// A callback scheduled on a loop's clock: once after a delay, or repeatedly at a fixed rate.
///
/// Must be used on the main actor.
///
/// Create one with ``Loop/schedule(after:_:)`` or ``Loop/scheduleRepeating(every:_:)``. Dropping the task does
/// not cancel it: the loop keeps it until it fires or is cancelled.
///
/// ```swift
/// let timeout = loop.schedule(after: .seconds(5)) { print("gave up") }
/// // … the answer arrived in time:
/// timeout.cancel()
/// ```
///
/// A repeating task keeps a fixed rate: firing *k* is due at `start + k × interval`. When the loop was too busy
/// to fire on time and one or more deadlines have already passed, the task fires once and skips the ones it
/// missed rather than firing them back to back; ``skippedFirings`` counts them.
@MainActor
public final class ScheduledTask {
    enum State {
        case scheduled
        case fired
        case cancelled
    }

    enum Body {
        case once(@MainActor () -> Void)
        case repeating(@MainActor (ScheduledTask) -> Void)
        /// A body scheduled with a label (for stall reports and snapshots). Indirect, so that the label lives in the
        /// one box a labelled timer allocates (as its wrapping closure's context did before) and `Body` stays as wide
        /// as a closure: unlabelled timers, and the task object, pay nothing for labels (checked by
        /// `ScheduledTaskLayoutTests`).
        indirect case labelled(StaticString, Body)

        /// `body` with `label`, or `body` itself when there is no label.
        static func labelling(_ body: Body, _ label: StaticString?) -> Body {
            guard let label else { return body }
            return .labelled(label, body)
        }
    }

    /// The time between firings of a repeating task; `nil` for a task that fires once.
    public let interval: Duration?

    /// When the task fires next (for a task that has fired or was cancelled: when it was last due).
    public internal(set) var deadline: LoopInstant

    /// How many firings a repeating task skipped because the loop reached them late.
    public internal(set) var skippedFirings: Int = 0

    /// How many times the task has fired.
    public internal(set) var firings: Int = 0

    // All stored state below is protected by the main actor.
    var state: State = .scheduled
    var body: Body?
    /// Position in the scheduling order; ties between equal deadlines go to the lower sequence number.
    var sequence: UInt64 = 0
    weak var queue: _TimerQueue?

    init(deadline: LoopInstant, interval: Duration?, body: Body) {
        self.deadline = deadline
        self.interval = interval
        self.body = body
    }

    /// The label the task was scheduled with, while it is still scheduled (its body holds the label); else `nil`.
    var label: StaticString? {
        guard case .labelled(let label, _) = body else { return nil }
        return label
    }

    /// Whether the task will still fire (it has neither fired for the last time nor been cancelled).
    public var isScheduled: Bool { state == .scheduled }

    /// Whether ``cancel()`` stopped the task.
    public var isCancelled: Bool { state == .cancelled }

    /// Stops the task: it does not fire again, and its callback (with everything it captured) is released.
    ///
    /// Idempotent, and safe to call from inside the task's own callback. Cancelling a one-shot task that has
    /// already fired does nothing.
    ///
    /// - Complexity: Amortized O(1); cancelled tasks are removed lazily and compacted in bulk.
    public func cancel() {
        guard state == .scheduled else { return }
        state = .cancelled
        body = nil
        queue?.didCancel()
    }
}

@available(*, unavailable, message: "ScheduledTask is main-actor isolated; hop to the loop to share it")
extension ScheduledTask.Body: Sendable {}
