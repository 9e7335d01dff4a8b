import Dispatch
import MainlineEvents
import MainlineLoop

/// A `LazySimpleEvent` with one observer, triggered 1,000,000 times per run while a delivery is already pending.
///
/// A `LazySimpleEvent` is pending from its first trigger until its delivery starts, in the loop's settle phase;
/// every trigger in between should cost next to nothing. Each run makes the event pending with one trigger, times
/// `triggersPerRun` more, and then lets the loop deliver; the observer counts deliveries, and every run checks that
/// there was exactly one per run (none during the timed triggers, none extra).
///
/// ``triggerOnLoop()`` must be called on the main actor; ``triggerFromThisThread()`` must not.
final class PendingTriggerWorkload: Sendable {
    static let triggersPerRun = 1_000_000

    /// Signalled by each delivery.
    private let delivered = DispatchSemaphore(value: 0)
    private let state: DeliveryCount
    private let event: LazySimpleEvent

    @MainActor init() {
        event = LazySimpleEvent()
        state = DeliveryCount()
        let (state, delivered) = (state, delivered)
        state.token = event.addObserver { [unowned state] _ in
            state.deliveries += 1
            delivered.signal()
        }
    }

    /// On the loop: inside a post body (so inside the loop's post phase), makes the event pending and times
    /// `triggersPerRun` triggers. Then, after the post body returns, the loop delivers in the same iteration's settle
    /// phase. Returns the time the timed triggers took, in nanoseconds.
    @MainActor func triggerOnLoop() -> UInt64 {
        let event = event
        let before = state.deliveries
        event.trigger()  // Pending from here: delivery comes in settle, after this post body returns.
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<Self.triggersPerRun { event.trigger() }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        precondition(state.deliveries == before, "BUG: a LazySimpleEvent delivered inside trigger()")
        return elapsed
    }

    /// From the calling thread (a harness thread), while the main loop is held busy so that the delivery cannot start:
    /// makes the event pending (which posts one request to the loop), times `triggersPerRun` triggers, then releases
    /// the loop, which delivers. Returns the time the timed triggers took, in nanoseconds.
    ///
    /// Holding the loop is what keeps the event pending for the whole timed loop: left alone, the loop would deliver
    /// within microseconds, and the triggers after that would each pay a new request.
    func triggerFromThisThread() -> UInt64 {
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        MainLoop.main.post {
            held.signal()
            release.wait()
        }
        held.wait()
        let event = event
        event.trigger()  // Pending from here: posts the request, which waits behind the held post.
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<Self.triggersPerRun { event.trigger() }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        release.signal()
        return elapsed
    }

    /// Blocks until the delivery of the current run, then checks that every run so far was delivered exactly once.
    func waitForDelivery() {
        delivered.wait()
        let (deliveries, runs) = onMainLoop { [state] in
            state.runs += 1
            return (state.deliveries, state.runs)
        }
        precondition(
            deliveries == runs,
            "pending trigger: \(deliveries) deliveries after \(runs) runs, expected one per run"
        )
    }
}

/// The observer's side of ``PendingTriggerWorkload``.
///
/// Must be used on the main actor.
@MainActor
private final class DeliveryCount {
    var deliveries = 0
    /// Runs whose delivery was waited for.
    var runs = 0
    var token: SimpleEventToken?
}
