/// A thread whose stack another thread may capture later (its pthread and kernel thread id).
///
/// All operations on `_ThreadHandle` are thread-safe: it is a value, taken on the thread it names (`current()`, MainlineInspection) and
/// handed to whichever thread captures (the stall watchdog), which passes it to `LoopBacktrace.capture(of:timeout:)`.
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

    /// A handle from its parts; `current()` (MainlineInspection) is how a thread names itself.
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
}

/// How a loop's stall stamps name the thread running the loop, so that a watchdog can capture its stack: given by the
/// watchdog (MainlineInspection), which owns the capture signal.
///
/// `_ThreadCapture` is a value; its closures are thread-safe and are called on the thread they name.
package struct _ThreadCapture: Sendable {
    /// Names the calling thread and makes it capturable.
    package let current: @Sendable () -> _ThreadHandle
    /// Makes the calling thread, named before, capturable again (its signal mask may have changed since).
    package let allowAgain: @Sendable () -> Void

    /// A capture from its two steps.
    ///
    /// - Parameters:
    ///   - current: Names the calling thread and makes it capturable.
    ///   - allowAgain: Makes the calling thread capturable again.
    package init(current: @escaping @Sendable () -> _ThreadHandle, allowAgain: @escaping @Sendable () -> Void) {
        self.current = current
        self.allowAgain = allowAgain
    }
}
