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
    /// The callback and span generations the watchdog reported and waits to see end (0: none), and when they ended.
    private var watchedCallback: UInt64 = 0
    private var watchedSpan: UInt64 = 0
    private var watchedEnd: UInt64?
    /// When the loop last went idle (finished its callbacks).
    private var lastIdle: UInt64 = 0

    /// A callback labelled `label` starts now (and, if the loop was idle, a busy span with it).
    @inline(__always)
    func begin(_ label: StaticString) {
        let now = _UVClock.nanoseconds()
        lock.lock()
        if !isBusy {
            isBusy = true
            spanStart = now
            spanGeneration &+= 1
        } else if callbackGeneration == watchedCallback {
            // The next callback begins: the reported one has ended.
            watchedEnd = now
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
        lock.withLock {
            guard isBusy else { return }
            isBusy = false
            lastIdle = _UVClock.nanoseconds()
            if watchedCallback != 0 || watchedSpan != 0, watchedEnd == nil,
                callbackGeneration == watchedCallback || spanGeneration == watchedSpan
            {
                watchedEnd = lastIdle
            }
        }
    }

    /// The watchdog reported the callback `callback` (or, with `callback` 0, the span `span`): record when it ends.
    func watch(callback: UInt64, span: UInt64) {
        lock.withLock {
            watchedCallback = callback
            watchedSpan = callback == 0 ? span : 0
            watchedEnd = nil
        }
    }

    /// When the watched callback or span ended, once it has (and then stops watching).
    func endOfWatched() -> UInt64? {
        lock.withLock {
            guard let end = watchedEnd else { return nil }
            watchedCallback = 0
            watchedSpan = 0
            watchedEnd = nil
            return end
        }
    }

    /// When the loop last finished its callbacks: main-actor time before it was the loop's own.
    var idleSince: UInt64 { lock.withLock { lastIdle } }

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

/// The watchdog thread: checks a `_StallMonitor` every quarter threshold and reports each stall once, when it is
/// detected ("has held the loop for at least …") and again, in the log, when it ends (its total).
///
/// All operations on `_StallWatchdog` are thread-safe. ``stop()`` ends the thread at its next wake-up (at once:
/// it waits on a semaphore that `stop` signals).
///
/// With `watchesMainActor` (the main loop) it also keeps one heartbeat queued on the dispatch main queue, which the
/// main actor serves: main-actor work that does not run as one of the loop's callbacks — `await MainActor.run {}` or a
/// `Task { @MainActor in }` in guest mode, where dispatch runs it beside the loop — holds the heartbeat back, and a
/// heartbeat waiting past the threshold while the loop runs no callback of its own is a stall labelled `main actor`.
final class _StallWatchdog: Sendable {
    let monitor = _StallMonitor()
    private let stopSignal = DispatchSemaphore(value: 0)

    init(settings: LoopWatchdog, instrumentation: LoopInstrumentation, watchesMainActor: Bool = false) {
        let checker = _Checker(
            monitor: monitor,
            heartbeat: watchesMainActor ? _MainActorHeartbeat() : nil,
            settings: settings,
            instrumentation: instrumentation
        )
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
        let heartbeat: _MainActorHeartbeat?
        let threshold: UInt64
        let settings: LoopWatchdog
        let instrumentation: LoopInstrumentation
        /// The last callback and span generations reported, so that each stall is reported once.
        var reportedCallback: UInt64 = 0
        var reportedSpan: UInt64 = 0
        /// The last heartbeat reported as a main-actor stall.
        var reportedHeartbeat: UInt64 = 0
        /// The stall reported and not yet seen to end, with when it began.
        var ongoing: (stall: LoopStall, start: UInt64, isMainActor: Bool)?
        var stalls: _CountersByDimension

        init(
            monitor: _StallMonitor,
            heartbeat: _MainActorHeartbeat?,
            settings: LoopWatchdog,
            instrumentation: LoopInstrumentation
        ) {
            self.monitor = monitor
            self.heartbeat = heartbeat
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
            reportEndOfOngoingStall()
            let running = monitor.snapshot()
            let now = _UVClock.nanoseconds()
            if let running {
                checkLoop(running, now: now)
            } else if let heartbeat {
                checkMainActor(heartbeat, now: now)
            }
            heartbeat?.sendIfNoneOutstanding()
        }

        /// One of the loop's callbacks (or iterations) runs: reported once it has run for the threshold.
        private func checkLoop(_ running: _StallMonitor.Snapshot, now: UInt64) {
            let callbackTime = now &- running.callbackStart
            let spanTime = now &- running.spanStart
            if callbackTime >= threshold && running.callbackGeneration != reportedCallback {
                reportedCallback = running.callbackGeneration
                reportedSpan = running.spanGeneration
                monitor.watch(callback: running.callbackGeneration, span: running.spanGeneration)
                let stall = LoopStall(label: "\(running.label)", kind: .callback, duration: .nanoseconds(callbackTime))
                report(stall, start: running.callbackStart, isMainActor: false)
            } else if spanTime >= threshold && running.spanGeneration != reportedSpan {
                reportedSpan = running.spanGeneration
                monitor.watch(callback: 0, span: running.spanGeneration)
                let stall = LoopStall(label: "\(running.label)", kind: .iteration, duration: .nanoseconds(spanTime))
                report(stall, start: running.spanStart, isMainActor: false)
            }
        }

        /// The loop runs nothing of its own: a heartbeat that waits past the threshold means other main-actor work
        /// holds the main queue.
        private func checkMainActor(_ heartbeat: _MainActorHeartbeat, now: UInt64) {
            guard let waiting = heartbeat.outstanding, waiting.generation != reportedHeartbeat else { return }
            // Time the loop's own callbacks held the main actor is theirs (reported as such): count from when they
            // ended.
            let start = max(waiting.sentAt, monitor.idleSince)
            let waited = now &- start
            guard waited >= threshold, waited < UInt64.max / 2 else { return }
            reportedHeartbeat = waiting.generation
            let stall = LoopStall(label: "main actor", kind: .callback, duration: .nanoseconds(waited))
            report(stall, start: start, isMainActor: true)
        }

        /// Logs the total of the stall reported last, once it has ended.
        private func reportEndOfOngoingStall() {
            guard let ongoing else { return }
            let end: UInt64?
            if ongoing.isMainActor {
                end = heartbeat?.ranAt(generation: reportedHeartbeat)
            } else {
                end = monitor.endOfWatched()
            }
            guard let end else { return }
            self.ongoing = nil
            let total = end &- ongoing.start
            instrumentation.logger.warning(
                "Main loop stall ended: \(ongoing.stall.subject) held the loop for \(Self.milliseconds(total)) ms in total",
                metadata: [
                    "label": "\(ongoing.stall.label)",
                    "kind": "\(ongoing.stall.kind == .callback ? "callback" : "iteration")",
                    "total_ms": "\(total / 1_000_000)",
                    "threshold_ms": "\(threshold / 1_000_000)",
                ]
            )
        }

        private func report(_ stall: LoopStall, start: UInt64, isMainActor: Bool) {
            // A new stall replaces one whose end was not seen (its end is no longer knowable).
            ongoing = (stall, start, isMainActor)
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

        private static func milliseconds(_ nanoseconds: UInt64) -> String {
            "\((Double(nanoseconds) / 1e5).rounded() / 10)"
        }
    }
}
