#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What the loop is running right now, stamped by the loop and read by the watchdog's thread.
///
/// All operations on `_StallMonitor` are thread-safe. The loop's probe (`_LoopProbe`) calls
/// ``begin(_:site:at:)`` and ``idle(at:)`` where the loop runs; the watchdog reads ``snapshot()`` on its own thread.
///
/// A stamp is one clock read and one uncontended lock; it is made only while a watchdog is installed.
package final class _StallMonitor: @unchecked Sendable {
    // @unchecked Sendable: every `var` is protected by `lock`.
    package struct Snapshot {
        package var spanStart: UInt64
        package var spanGeneration: UInt64
        package var callbackStart: UInt64
        package var callbackGeneration: UInt64
        /// What runs: `post`, `timer`, `settle`, … (for work with a site: its kind).
        package var label: StaticString
        /// Where the running work came from, when it is work with a site (a post, a timer, an idle body).
        package var site: LoopSite?
        /// The thread running it (the loop's, captured at the start of the busy span), for a backtrace.
        package var thread: _ThreadHandle?
    }

    private let lock = _Lock()
    /// How the loop's thread is named for a backtrace (the watchdog's).
    private let capture: _ThreadCapture
    /// Whether a callback of the current busy span is running (between the first `begin` and `idle`).
    private var isBusy = false
    private var spanStart: UInt64 = 0
    private var spanGeneration: UInt64 = 0
    private var callbackStart: UInt64 = 0
    private var callbackGeneration: UInt64 = 0
    private var label: StaticString = "post"
    private var site: LoopSite?
    private var thread: _ThreadHandle?
    /// The handle of the thread that ran the last busy span: taking one costs system calls, a comparison with
    /// `pthread_self()` does not.
    private var lastThread: _ThreadHandle?
    /// The callback and span generations the watchdog reported and waits to see end (0: none), and when they ended.
    private var watchedCallback: UInt64 = 0
    private var watchedSpan: UInt64 = 0
    private var watchedEnd: UInt64?
    /// When the loop last went idle (finished its callbacks).
    private var lastIdle: UInt64 = 0

    /// A monitor whose busy spans name their thread with `capture`.
    ///
    /// - Parameter capture: How the loop's thread is named and made capturable (the watchdog's).
    package init(capture: _ThreadCapture) {
        self.capture = capture
    }

    /// A callback labelled `label` starts now (and, if the loop was idle, a busy span with it): work of the loop's own
    /// with no site.
    @inline(__always)
    func begin(_ label: StaticString) {
        begin(label, site: nil, at: nil)
    }

    /// Work labelled `label` (`post`, `timer`, `settle`, …) from `site`, if it has one, starts at `now` (and, if the
    /// loop was idle, a busy span with it): `now` is the loop's probe's clock read (`_LoopProbe`), or `nil` to read
    /// the clock here.
    @inline(__always)
    func begin(_ label: StaticString, site: LoopSite?, at now: UInt64?) {
        let now = now ?? _MonotonicClock.nanoseconds()
        lock.lock()
        if !isBusy {
            isBusy = true
            spanStart = now
            spanGeneration &+= 1
            // The thread is read once per busy span: a guest loop's main-actor work may move between dispatch's
            // threads from one pump to the next, never within one. Naming it here, on the loop's thread, also lets it
            // answer a backtrace request (see `_ThreadHandle.current()`).
            thread = currentThread()
        } else if callbackGeneration == watchedCallback {
            // The next callback begins: the reported one has ended.
            watchedEnd = now
        }
        callbackStart = now
        callbackGeneration &+= 1
        self.label = label
        self.site = site
        lock.unlock()
    }

    /// The calling thread's handle, able to answer a capture: the last one, when the same thread runs the loop again.
    /// Under `lock`.
    private func currentThread() -> _ThreadHandle {
        let pthread = UInt(pthread_self())
        if let lastThread, lastThread.pthread == pthread {
            // The handle is the same, the signal mask may not be: libdispatch may block signals again on a worker it
            // reuses. One system call per busy span, and only while a watchdog is installed.
            capture.allowAgain()
            return lastThread
        }
        let handle = capture.current()
        lastThread = handle
        return handle
    }

    /// The loop is about to wait: nothing runs until the next `begin`. `now` is when its work ended (the end of its
    /// probe's last phase), or `nil` to read the clock here.
    package func idle(at now: UInt64? = nil) {
        lock.withLock {
            guard isBusy else { return }
            isBusy = false
            lastIdle = now ?? _MonotonicClock.nanoseconds()
            if watchedCallback != 0 || watchedSpan != 0, watchedEnd == nil,
                callbackGeneration == watchedCallback || spanGeneration == watchedSpan
            {
                watchedEnd = lastIdle
            }
        }
    }

    /// The watchdog reported the callback `callback` (or, with `callback` 0, the span `span`): record when it ends.
    package func watch(callback: UInt64, span: UInt64) {
        lock.withLock {
            watchedCallback = callback
            watchedSpan = callback == 0 ? span : 0
            watchedEnd = nil
        }
    }

    /// When the watched callback or span ended, once it has (and then stops watching).
    package func endOfWatched() -> UInt64? {
        lock.withLock {
            guard let end = watchedEnd else { return nil }
            watchedCallback = 0
            watchedSpan = 0
            watchedEnd = nil
            return end
        }
    }

    /// When the loop last finished its callbacks: main-actor time before it was the loop's own.
    package var idleSince: UInt64 { lock.withLock { lastIdle } }

    /// What runs now, or `nil` when the loop is idle.
    package func snapshot() -> Snapshot? {
        lock.withLock {
            guard isBusy else { return nil }
            return Snapshot(
                spanStart: spanStart,
                spanGeneration: spanGeneration,
                callbackStart: callbackStart,
                callbackGeneration: callbackGeneration,
                label: label,
                site: site,
                thread: thread
            )
        }
    }
}
