import Dispatch

/// Counts the jobs a consumer has run and signals the benchmark when the last one has.
///
/// `Countdown` is **not** thread-safe by itself; it follows a fixed protocol instead. The benchmark thread calls
/// ``arm(_:)`` before any job is posted; then exactly one consumer (the main actor, or the NIO loop thread) calls
/// ``tick()`` once per job; the benchmark thread calls ``wait()``. Posting orders `arm` before the consumer's first
/// `tick` (every peer's queue hands work over under a lock), and the semaphore orders the last `tick` before
/// `wait` returns.
final class Countdown: @unchecked Sendable {
    // @unchecked Sendable: `remaining` and `elapsedNanoseconds` follow the protocol above.
    private var remaining = 0
    private let done = DispatchSemaphore(value: 0)

    /// Written by the consumer before its last `tick()`; read by the benchmark thread after `wait()`.
    var elapsedNanoseconds: UInt64 = 0

    /// Expects `count` ticks.
    func arm(_ count: Int) {
        precondition(count > 0, "Countdown.arm needs at least one tick")
        remaining = count
    }

    /// One job ran; the last one wakes the benchmark thread.
    @inline(never)
    func tick() {
        remaining -= 1
        if remaining == 0 { done.signal() }
    }

    /// Blocks until every armed tick has happened.
    func wait() {
        done.wait()
    }
}

/// What the posted jobs of the throughput and allocation benchmarks tick. A global `let`, so that the posted
/// closures capture nothing and cost no context allocation (for every peer alike).
let postSink = Countdown()

/// What the timers of the timer benchmarks tick.
let timerSink = Countdown()

/// Signalled by the one job of a round trip.
let roundTripReply = DispatchSemaphore(value: 0)
