/// A `Clock` that reads a loop's time and sleeps on the loop's timers: `loop.clock`.
///
/// Every loop has one. On `MainLoop` and `EventLoop` it is the loop's monotonic real-time clock (the same clock as
/// their `now`); on `TestLoop` it is the test's virtual time, so code that sleeps on it is tested without waiting:
///
/// ```swift
/// // In a view model, on any loop:
/// try await Task.sleep(for: .seconds(1), clock: loop.clock)
///
/// // In its test: one call moves a second of virtual time and lets the sleeper run.
/// await testLoop.advance(by: .seconds(1))
/// ```
///
/// **Sleeping** arms a one-shot timer on the loop. The sleeping task resumes when that timer fires — in the loop's
/// timer phase, in deadline order with every other timer of the loop — on a `TestLoop` only when the test advances
/// virtual time to the deadline, never in real time. Cancelling the sleeping task cancels its timer and throws
/// `CancellationError`; if the loop stops first (its timers are cancelled at shutdown), the sleep throws
/// ``LoopStopped``, so a task never waits on a loop that will not wake it.
///
/// **Threading.** `LoopClock` is a `Sendable` value: ``now`` and the sleeps may be used from any thread and any task.
/// A sleep started on the main actor arms its timer at once on a main-actor loop; from elsewhere it is armed by a post
/// to the loop (its deadline is absolute, so the post's delay does not move it). ``sleep(until:tolerance:)`` and
/// ``sleep(for:tolerance:)`` run on the caller's actor (`nonisolated(nonsending)`), so a main-actor caller does not
/// hop to the global executor and back; `Task.sleep(for:clock:)` does hop (it is the standard library's), which costs
/// two executor switches per sleep and nothing else.
///
/// **Resolution.** Real loops arm libuv timers, which fire on whole milliseconds (``minimumResolution`` is 1 ms); the
/// tolerance is ignored, as the loop never coalesces timers beyond that. Virtual time is exact to the nanosecond.
public struct LoopClock: Clock {
    /// The loop's instant: nanoseconds on the loop's monotonic clock.
    public typealias Instant = LoopInstant

    /// Where the time comes from and how a sleep is armed (the loop behind the clock).
    package let source: any _LoopClockSource

    package init(source: any _LoopClockSource) {
        self.source = source
    }

    /// The loop's current time. Thread-safe.
    public var now: LoopInstant {
        if source.readsRealTime { _Escape.note(.realClockRead, "LoopClock.now of a real loop") }
        return source.clockNow
    }

    /// The smallest step the loop's timers can tell apart: 1 ms on a real loop, 1 ns in virtual time. Thread-safe.
    public var minimumResolution: Duration { source.clockResolution }

    /// Suspends the calling task until the loop's clock reaches `deadline`. Callable from any task.
    ///
    /// A deadline already passed still waits for the loop's next timer phase (it never returns synchronously).
    ///
    /// - Parameters:
    ///   - deadline: When to resume, on this clock.
    ///   - tolerance: Ignored: loop timers fire at the resolution of the loop (see ``minimumResolution``).
    /// - Throws: `CancellationError` if the task is cancelled before the deadline (its timer is cancelled);
    ///   ``LoopStopped`` if the loop stops first or has stopped.
    public nonisolated(nonsending) func sleep(until deadline: LoopInstant, tolerance: Duration? = nil) async throws {
        let source = self.source
        let isolation: (any Actor)? = #isolation
        let onMainActor: Bool = isolation.map { $0 === MainActor.shared } ?? false
        if source.readsRealTime { _Escape.note(.realSleep, "LoopClock.sleep(until:) on a real loop's clock") }
        source.adoptCurrentTask()
        try await _LoopRun<Void>.perform { runGuard in
            source.armTimer(at: deadline, onMainActor: onMainActor, runGuard)
        }
    }

    /// Suspends the calling task for `duration` on the loop's clock. Callable from any task.
    ///
    /// The same as `Task.sleep(for: duration, clock: clock)`, without its hop to the global executor.
    ///
    /// - Parameters:
    ///   - duration: How long from ``now``; zero or less still waits for the loop's next timer phase.
    ///   - tolerance: Ignored (see ``sleep(until:tolerance:)``).
    /// - Throws: `CancellationError` if the task is cancelled first; ``LoopStopped`` if the loop stops first.
    public nonisolated(nonsending) func sleep(for duration: Duration, tolerance: Duration? = nil) async throws {
        try await sleep(until: now + duration, tolerance: tolerance)
    }
}

extension LoopClock {
    /// A clock for a ``Loop`` of your own: ``now`` reads `now`, and a sleep arms a timer with the loop's
    /// `schedule(at:_:)` (on the main actor; from elsewhere through a post).
    ///
    /// ```swift
    /// nonisolated var clock: LoopClock { LoopClock(loop: self, now: { MyClock.read() }) }
    /// ```
    ///
    /// Callable from any thread.
    ///
    /// - Parameters:
    ///   - loop: The loop whose timers the sleeps use.
    ///   - now: The loop's time; it must be thread-safe, as ``now`` is read from any thread.
    ///   - minimumResolution: The resolution of the loop's timers.
    public init<L: Loop>(
        loop: L,
        now: @escaping @Sendable () -> LoopInstant,
        minimumResolution: Duration = .nanoseconds(1)
    ) {
        self.init(source: _MainActorLoopClockSource(loop: loop, now: now, resolution: minimumResolution))
    }
}
