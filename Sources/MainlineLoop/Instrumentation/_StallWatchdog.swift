import CLibUV
import CoreMetrics
import Dispatch
import Logging

/// What the loop is running right now, stamped by the loop and read by the watchdog's thread.
///
/// All operations on `_StallMonitor` are thread-safe. The loop calls ``begin(_:)``, ``relabel(_:)`` and
/// ``idle()`` on the main actor; the watchdog reads ``snapshot()`` on its own thread.
///
/// A stamp is one clock read and one uncontended lock; it is made only while a watchdog is installed.
final class _StallMonitor: @unchecked Sendable {
    // @unchecked Sendable: every `var` is protected by `lock`.
    struct Snapshot {
        var spanStart: UInt64
        var spanGeneration: UInt64
        var callbackStart: UInt64
        var callbackGeneration: UInt64
        var label: StaticString
    }

    private let lock = _Lock()
    /// Whether a callback of the current busy span is running (between the first `begin` and `idle`).
    private var isBusy = false
    private var spanStart: UInt64 = 0
    private var spanGeneration: UInt64 = 0
    private var callbackStart: UInt64 = 0
    private var callbackGeneration: UInt64 = 0
    private var label: StaticString = "post"

    /// A callback labelled `label` starts now (and, if the loop was idle, a busy span with it).
    @inline(__always)
    func begin(_ label: StaticString) {
        let now = _UVClock.nanoseconds()
        lock.lock()
        if !isBusy {
            isBusy = true
            spanStart = now
            spanGeneration &+= 1
        }
        callbackStart = now
        callbackGeneration &+= 1
        self.label = label
        lock.unlock()
    }

    /// The running callback is more precisely `label` (a labelled post says what it is once it runs).
    func relabel(_ label: StaticString) {
        lock.withLock { self.label = label }
    }

    /// The loop is about to wait: nothing runs until the next `begin`.
    func idle() {
        lock.withLock { isBusy = false }
    }

    /// What runs now, or `nil` when the loop is idle.
    func snapshot() -> Snapshot? {
        lock.withLock {
            guard isBusy else { return nil }
            return Snapshot(
                spanStart: spanStart,
                spanGeneration: spanGeneration,
                callbackStart: callbackStart,
                callbackGeneration: callbackGeneration,
                label: label
            )
        }
    }
}

/// The watchdog thread: checks a `_StallMonitor` every quarter threshold and reports each stall once.
///
/// All operations on `_StallWatchdog` are thread-safe. ``stop()`` ends the thread at its next wake-up (at once:
/// it waits on a semaphore that `stop` signals).
final class _StallWatchdog: Sendable {
    let monitor = _StallMonitor()
    private let stopSignal = DispatchSemaphore(value: 0)

    init(settings: LoopWatchdog, instrumentation: LoopInstrumentation) {
        let checker = _Checker(monitor: monitor, settings: settings, instrumentation: instrumentation)
        let stopSignal = self.stopSignal
        let interval = max(settings.threshold.mainlineNanoseconds / 4, 1_000_000)
        EventLoop._Thread.start(name: "mainline-watch") {
            // Real time on purpose: the watchdog is about real stalls, whatever clock the loop runs on.
            while stopSignal.wait(timeout: .now() + .nanoseconds(Int(interval))) == .timedOut {
                checker.check()
            }
        }
    }

    /// Ends the watchdog thread. Idempotent in effect (later signals are never waited for).
    func stop() {
        stopSignal.signal()
    }

    /// The watchdog thread's state: touched only on that thread.
    private final class _Checker: @unchecked Sendable {
        // @unchecked Sendable: created before the thread starts, then used only on the watchdog thread.
        let monitor: _StallMonitor
        let threshold: UInt64
        let settings: LoopWatchdog
        let instrumentation: LoopInstrumentation
        /// The last callback and span generations reported, so that each stall is reported once.
        var reportedCallback: UInt64 = 0
        var reportedSpan: UInt64 = 0
        var stalls: _CountersByDimension

        init(monitor: _StallMonitor, settings: LoopWatchdog, instrumentation: LoopInstrumentation) {
            self.monitor = monitor
            self.threshold = UInt64(settings.threshold.mainlineNanoseconds)
            self.settings = settings
            self.instrumentation = instrumentation
            self.stalls = _CountersByDimension(
                label: LoopMetricName.stalls,
                dimension: "label",
                instrumentation: instrumentation
            )
        }

        func check() {
            defer { settings.onCheck?() }
            guard let running = monitor.snapshot() else { return }
            let now = _UVClock.nanoseconds()
            let callbackTime = now &- running.callbackStart
            let spanTime = now &- running.spanStart
            if callbackTime >= threshold && running.callbackGeneration != reportedCallback {
                reportedCallback = running.callbackGeneration
                reportedSpan = running.spanGeneration
                report(LoopStall(label: "\(running.label)", kind: .callback, duration: .nanoseconds(callbackTime)))
            } else if spanTime >= threshold && running.spanGeneration != reportedSpan {
                reportedSpan = running.spanGeneration
                report(LoopStall(label: "\(running.label)", kind: .iteration, duration: .nanoseconds(spanTime)))
            }
        }

        private func report(_ stall: LoopStall) {
            instrumentation.logger.warning(
                "Main loop stall: \(stall)",
                metadata: [
                    "label": "\(stall.label)",
                    "kind": "\(stall.kind == .callback ? "callback" : "iteration")",
                    "duration_ms": "\(stall.duration.mainlineNanoseconds / 1_000_000)",
                    "threshold_ms": "\(threshold / 1_000_000)",
                ]
            )
            stalls.counter(for: stall.label).increment()
            settings.onStall?(stall)
        }
    }
}
