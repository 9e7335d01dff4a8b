import CMainlineShims
import Dispatch
import MainlineLoopCore

extension DiagnosticKind {
    /// `stopAndWait()` was called where the loop runs (the main actor, or the process main thread), where waiting for
    /// the loop to stop could never end; the loop was stopped without waiting.
    public static let stopAndWaitOnLoop = DiagnosticKind(rawValue: "stop-and-wait-on-loop")
}

extension MainLoop {
    /// Stops the loop and blocks the calling thread until it has stopped and closed everything it opened.
    ///
    /// Call it from a thread that is not the loop's: a worker thread, a signal-handling thread, a `deinit` off the
    /// main actor. As ``stop()``, work already posted still runs, then settle and the shutdown hooks; this call
    /// returns after that, when ``waitUntilStopped()`` would resume. Returns at once on a loop that has already
    /// stopped, or that nothing ever ran and nothing was posted to. Async code should `stop()` and
    /// `await waitUntilStopped()` instead of blocking a thread of the cooperative pool.
    ///
    /// ```swift
    /// // A worker thread that owns the process's shutdown:
    /// MainLoop.main.stopAndWait()
    /// flushLogs()   // everything the loop had posted has run
    /// ```
    ///
    /// - Important: Never call it on the main actor or on the process main thread. The loop runs there (on the main
    ///   actor in every mode, on the main thread in owner mode), so it could never stop while that thread waits for
    ///   it: a deadlock. Such a call is reported to `Diagnostics` as `DiagnosticKind.stopAndWaitOnLoop` (debug
    ///   builds trap by default) and, when the handler returns, does what is safe: it stops the loop and returns
    ///   without waiting; ``waitUntilStopped()`` or ``state`` tells when the loop has stopped.
    public func stopAndWait() {
        stop()
        guard state != .stopped else { return }
        guard !(_RunningLoop.isOnMainActor || mainline_is_main_thread()) else {
            Diagnostics.report(
                .stopAndWaitOnLoop,
                """
                MainLoop.stopAndWait() was called on the \
                \(mainline_is_main_thread() ? "process main thread" : "main actor"), where the loop runs: it waits for \
                the loop to stop, which can never happen while this thread waits. The loop was stopped without waiting \
                (state: \(state)). Call stop() here and await waitUntilStopped(), or call stopAndWait() from another \
                thread.
                """
            )
            return
        }
        let stopped = DispatchSemaphore(value: 0)
        if lifecycle.withLock({ $0.addBlockedWaiter(stopped) }) { stopped.wait() }
    }
}
