import Dispatch
import MainlineLoop

/// Runs `body` on Mainline's main loop and blocks the calling thread until it has returned; returns its result.
///
/// Must not be called on the main actor (it would wait for itself). The body runs in a `MainLoop.main.post`, so on
/// the main actor *and* inside the loop's post phase: a `LazySimpleEvent` triggered there counts as triggered on the
/// loop and is delivered in the settle phase of the same iteration, after the body has returned.
///
/// The event groups use it to set their workloads up on the main actor and to run the loops they time there.
func onMainLoop<Result: Sendable>(_ body: @escaping @MainActor @Sendable () -> Result) -> Result {
    let reply = Reply<Result>()
    let posted = MainLoop.main.post {
        reply.value = body()
        reply.done.signal()
    }
    precondition(posted, "onMainLoop: the main loop has stopped; the event benchmarks need it running")
    reply.done.wait()
    return reply.value!
}

/// The result of one ``onMainLoop(_:)`` call, handed from the loop back to the waiting thread.
private final class Reply<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is written once on the main actor before `done` is signalled, and read by the
    // waiting thread only after `done.wait()` returned; the semaphore orders the two.
    var value: Value?
    let done = DispatchSemaphore(value: 0)
}
