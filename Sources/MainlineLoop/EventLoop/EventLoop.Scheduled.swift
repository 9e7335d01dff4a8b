import MainlineLoopCore

extension EventLoop {
    /// A callback scheduled on an ``EventLoop``'s clock: once after a delay, or repeatedly at a fixed rate.
    ///
    /// All operations on `EventLoop.Scheduled` are thread-safe.
    ///
    /// Create one with ``EventLoop/schedule(after:fileID:line:_:)`` or ``EventLoop/scheduleRepeating(every:fileID:line:_:)``; keep it to
    /// cancel the callback. Dropping it does not cancel anything: the loop keeps the task until it fires, is
    /// cancelled, or the loop stops.
    ///
    /// ```swift
    /// let timeout = loop.schedule(after: .seconds(5)) { connection.close() }
    /// // … on any thread, when the answer arrived in time:
    /// timeout.cancel()
    /// ```
    ///
    /// A repeating task keeps a fixed rate: firing *k* is due at `start + k × interval`. When the loop reaches a
    /// firing late and later deadlines have already passed too, the task fires once and skips the ones it missed
    /// rather than firing them back to back; ``skippedFirings`` counts them.
    public final class Scheduled: @unchecked Sendable {
        // @unchecked Sendable: every `var` below is protected by `timers`'s lock; the `let`s never change.

        enum Body: Sendable {
            case once(@Sendable () -> Void)
            case repeating(@Sendable (Scheduled) -> Void)
        }

        /// The time between firings of a repeating task; `nil` for a task that fires once.
        public let interval: Duration?
        /// Where the timer was scheduled. Thread-safe.
        public let site: LoopSite
        /// The timers that own this task; their lock protects every `var` here.
        let timers: _Timers
        /// The shared timer state machine (see `_TimerState`), protected by `timers`'s lock.
        var state: _TimerState = .scheduled
        var body: Body?
        /// The next deadline on the loop clock, in nanoseconds.
        var nanosecondDeadline: Int64
        /// Position in the scheduling order; ties between equal deadlines go to the lower sequence number.
        var sequence: UInt64 = 0
        var firingCount = 0
        var skippedFiringCount = 0

        init(timers: _Timers, deadline: Int64, interval: Duration?, site: LoopSite) {
            self.timers = timers
            self.nanosecondDeadline = deadline
            self.interval = interval
            self.site = site
        }

        /// Whether the task is in the heap (must be read under `timers`'s lock).
        var isInHeap: Bool { state.isScheduled }

        /// Stops the task: it does not fire again, and its callback (with everything it captured) is released.
        ///
        /// Thread-safe and idempotent; safe to call from inside the task's own callback. Cancelling a one-shot task
        /// that has already fired does nothing.
        ///
        /// The loop commits each firing under the lock `cancel()` takes, so exactly one of them wins: once `cancel()`
        /// has returned, either ``isCancelled`` is `true` and the body never starts again, or the loop had already
        /// committed that firing — it has run, is running, or starts right away. For a repeating task, a firing
        /// committed before `cancel()` still runs; no later one does. `ScheduledTask.cancel()` promises the same.
        ///
        /// - Complexity: Amortized O(1); cancelled tasks are removed lazily and compacted in bulk.
        public func cancel() {
            timers.cancel(self)
        }

        /// Whether the task will still fire (it has neither fired for the last time nor been cancelled).
        public var isScheduled: Bool { timers.withLock { state.isScheduled } }

        /// Whether ``cancel()`` (or the loop's ``EventLoop/stop()``) stopped the task.
        public var isCancelled: Bool { timers.withLock { state.isCancelled } }

        /// When the task fires next (for a task that has fired or was cancelled: when it was last due).
        public var deadline: LoopInstant { timers.withLock { LoopInstant(nanoseconds: nanosecondDeadline) } }

        /// How many times the task has fired.
        public var firings: Int { timers.withLock { firingCount } }

        /// How many firings a repeating task skipped because the loop reached them late.
        public var skippedFirings: Int { timers.withLock { skippedFiringCount } }
    }
}

extension EventLoop.Scheduled: ScheduledWork {}
