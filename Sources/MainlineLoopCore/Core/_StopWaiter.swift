import Dispatch

/// Someone waiting for a loop to stop: a suspended task (`waitUntilStopped()`) or a blocked thread
/// (`stopAndWait()`).
///
/// All operations on `_StopWaiter` are thread-safe; ``resume()`` is called once, outside the lifecycle's lock.
package enum _StopWaiter: Sendable {
    case suspended(CheckedContinuation<Void, Never>)
    case blocked(DispatchSemaphore)

    /// Wakes the waiter.
    package func resume() {
        switch self {
        case .suspended(let continuation): continuation.resume()
        case .blocked(let semaphore): semaphore.signal()
        }
    }
}
