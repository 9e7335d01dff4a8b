import CMainlineBacktrace
import CMainlineShims
import MainlineLoop
import MainlineLoopCore

extension _ThreadHandle {
    /// The calling thread, made capturable: this unblocks the capture signal (`SIGRTMIN + 5`) on it.
    ///
    /// May be called on any thread; cheap (a few system calls; on the process's main thread, `pthread_getattr_np` also
    /// reads `/proc/self/maps` to find the stack). Call it on the thread to be captured, before the capture:
    /// a thread blocking the signal never answers, and threads started from a libdispatch worker (a Swift concurrency
    /// task, a test) inherit a signal mask that blocks nearly every signal, this one included. Only this signal is
    /// unblocked; the rest of the mask is left as it is.
    ///
    /// - Returns: A handle naming the calling thread.
    package static func current() -> _ThreadHandle {
        _ = mainline_backtrace_allow_capture_of_current_thread()
        var low: UInt = 0
        var high: UInt = 0
        _ = mainline_current_thread_stack(&low, &high)
        return _ThreadHandle(
            kernelID: Int32(truncatingIfNeeded: mainline_thread_id()),
            pthread: UInt(mainline_pthread_self()),
            stack: low..<max(low, high)
        )
    }

    /// How a watchdog's loop names its thread: ``current()``, and the capture signal unblocked again on a thread named
    /// before.
    static let capturing = _ThreadCapture(
        current: { _ThreadHandle.current() },
        allowAgain: { _ = mainline_backtrace_allow_capture_of_current_thread() }
    )
}
