import CMainlineBacktrace
import MainlineLoop
import MainlineLoopCore

extension LoopBacktrace {
    /// Captures `thread`'s stack from another thread.
    ///
    /// May be called on any thread (never from a signal handler). Thread-safe: concurrent callers take turns, each
    /// within its own `timeout`.
    ///
    /// Linux offers no way to read a running thread's registers short of `ptrace`, so the thread reads its own stack:
    /// this sends it a signal (`SIGRTMIN + 5`, with `tgkill`), whose handler unwinds the stack into a static buffer and
    /// publishes it; this waits for the answer, then symbolicates it here, on the calling thread. The handler allocates
    /// nothing and takes no lock, and an answer that comes after the timeout is dropped, so a capture neither crashes
    /// nor deadlocks whatever the thread is doing: a thread spinning without system calls answers in microseconds; a
    /// thread blocked in the kernel is woken to run the handler, then goes back to what it was doing.
    ///
    /// That wake-up is the price, and it is visible to the thread (the handler is installed with `SA_RESTART`):
    /// - Waits without a timeout resume as if nothing happened: locks (`pthread_mutex_lock`, `NSLock`),
    ///   `DispatchSemaphore.wait()`, reads and writes on pipes and sockets.
    /// - Sleeps, polls and timed waits return early with `EINTR`: `nanosleep` and `usleep` (`sleep` returns the seconds
    ///   left), `poll` and `epoll_wait` (libuv retries its own), `sem_timedwait`. glibc's timed lock and condition waits
    ///   and libdispatch's timed waits retry by themselves. Code that sleeps in a loop re-checking its condition, as it
    ///   must anyway, is unaffected; a bare `sleep(5)` is cut short.
    ///
    /// Returns `nil`, after at most about `timeout` (plus symbolication), when:
    /// - the thread has exited, or its kernel id now names another thread;
    /// - the thread does not answer in time: it blocks the signal (``_ThreadHandle/current()`` unblocks it; libuv's and
    ///   libdispatch's worker threads block it), or it cannot run (stopped, or starved of CPU for the whole timeout).
    ///   A thread that blocks it keeps one signal queued, never more, and answers a later capture once it unblocks it;
    /// - another handler owns the signal (the process installed one, or a `SignalRegistration` for that number).
    ///
    /// - Parameters:
    ///   - thread: The thread to read, as ``_ThreadHandle/current()`` named it on that thread.
    ///   - timeout: How long to wait for the thread's answer (and for another capture to finish first).
    /// - Returns: The thread's stack, innermost frame first; `nil` as above.
    /// - Note: Under ThreadSanitizer the sanitizer's handler receives the signal and runs this one at once when the
    ///   thread is blocked in a call it intercepts (sleeps, lock waits, reads), and otherwise at the thread's next
    ///   atomic operation or intercepted call: frame `#0` is then the caller of that operation (the sanitizer's frames
    ///   are removed). A loop with neither — pure computation — does not answer: the capture returns `nil` after
    ///   `timeout`, and the late answer is dropped.
    /// - Complexity: About 25 µs from request to answer for a running thread (a `/proc/self/task/<tid>/status` read,
    ///   10 µs, checks that no earlier signal is still queued there; the requester spins for the first 50 µs, then
    ///   sleeps in growing steps). Symbolicating costs about 10 µs per frame, plus, the first time a binary appears in a
    ///   backtrace, reading its symbol table (about 5 ms for a 66 MB debug test binary with 95,000 functions; kept
    ///   afterwards, within a 64 MiB budget). Measured on a 2-core x86_64 machine.
    package static func capture(of thread: _ThreadHandle, timeout: Duration = .milliseconds(200)) -> LoopBacktrace? {
        var addresses = [UInt](repeating: 0, count: Int(MAINLINE_BACKTRACE_MAX_FRAMES))
        var interruptedAt: UInt = 0
        let nanoseconds = max(0, timeout.mainlineNanoseconds)
        let count = addresses.withUnsafeMutableBufferPointer { buffer in
            mainline_backtrace_capture(
                thread.kernelID,
                thread.pthread,
                thread.stack.lowerBound,
                thread.stack.upperBound,
                nanoseconds,
                buffer.baseAddress,
                Int32(buffer.count),
                &interruptedAt
            )
        }
        guard count >= 0 else { return nil }
        return _Symbolicator.shared.backtrace(
            ofCapturedAddresses: addresses[..<Int(count)],
            interruptedAt: interruptedAt
        )
    }
}

extension LoopBacktrace {
    /// Installs the signal handler that ``capture(of:timeout:)`` relies on, ahead of need.
    ///
    /// May be called on any thread, any number of times (the handler is installed once); ``capture(of:timeout:)`` calls
    /// it too. Calling it early, at start-up, moves its one-time costs out of the first capture: installing the handler
    /// and loading the unwinder (`libgcc_s`), which must not happen inside a signal handler.
    ///
    /// The signal is `SIGRTMIN + 5`. If the process already has a handler for it, this leaves that handler alone and
    /// captures answer `nil`.
    package static func prepare() {
        _ = mainline_backtrace_prepare()
    }
}
