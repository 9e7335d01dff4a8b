import CMainlineShims

/// A thread whose stack another thread may capture later (its pthread and kernel thread id).
///
/// All operations on `_ThreadHandle` are thread-safe: it is a value, taken on the thread it names (``current()``) and
/// handed to whichever thread captures (the stall watchdog), which passes it to ``LoopBacktrace/capture(of:timeout:)``.
///
/// Not API: public to the package's other targets and its tests only.
///
/// - Note: A handle outlives its thread. Capturing an exited thread answers `nil`. Linux reuses kernel ids only after
///   the id space wraps around (`/proc/sys/kernel/pid_max`); a capture then checks the pthread as well, so a newer thread
///   that got both the old kernel id and the old pthread address (its descriptor reused) is the only case it cannot tell
///   apart, and then it reads that thread's stack.
package struct _ThreadHandle: Sendable, Hashable {
    /// The thread's kernel id (`gettid()`), which `tgkill` addresses.
    package let kernelID: Int32
    /// The thread's `pthread_self()`, which the signal handler compares with its own.
    package let pthread: UInt
    /// The thread's stack (empty when unknown): where the signal handler may read frame records when the unwinder stops
    /// early.
    package let stack: Range<UInt>

    /// A handle from its parts; ``current()`` is how a thread names itself.
    ///
    /// - Parameters:
    ///   - kernelID: The thread's kernel id (`gettid()`).
    ///   - pthread: The thread's `pthread_self()`.
    ///   - stack: The thread's stack, or an empty range when unknown.
    package init(kernelID: Int32, pthread: UInt, stack: Range<UInt>) {
        self.kernelID = kernelID
        self.pthread = pthread
        self.stack = stack
    }

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
}
