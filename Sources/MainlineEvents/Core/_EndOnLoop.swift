import MainlineLoop

/// Finishes ending an observation on `loop`: runs `body` now when the calling thread is inside one of `loop`'s phases
/// (so on the main actor), otherwise in a job posted to `loop`. Thread-safe.
///
/// The one way Mainline ends an observation from any thread — `_ObserverList.end(_:loop:)` (observables, data
/// sources), a `SimpleEvent`-family token ended through a `Disposable`, and a token of another kind held by a
/// `Disposable`: the caller first flags what must stop (so no round calls the observer once the caller returns), then
/// lets this run what remains (leaving the list, releasing the observer) on the loop. Never a `Task`: a job posted to
/// the loop runs in the loop's FIFO, is counted and drained at shutdown, and a `TestLoop` runs it in a step.
///
/// - Parameters:
///   - loop: The loop the observed thing lives on (the main loop for one that has none, as `SimpleEvent`).
///   - body: What remains of the ending.
/// - Returns: `false` when `loop` has stopped and `body` will not run: what it would have let go of goes when its
///   owner does.
@discardableResult
package func _endOnLoop(_ loop: any Loop, _ body: @escaping @MainActor @Sendable () -> Void) -> Bool {
    if _RunningLoop.isRunning(loop) {
        MainActor.assumeIsolated { body() }
        return true
    }
    return loop.post(body)
}
