import CoreMetrics
import Dispatch
import Logging
import MainlineLoop
import MainlineLoopCore

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
final class _StallWatchdog: _LoopWatching {
    let monitor = _StallMonitor(capture: _ThreadHandle.capturing)
    private let stopSignal = DispatchSemaphore(value: 0)

    /// - Parameter recorder: The loop's flight recorder: a report carries its last events, and is kept in it.
    init(
        settings: LoopWatchdog,
        instrumentation: LoopInstrumentation,
        recorder: LoopFlightRecorder,
        watchesMainActor: Bool = false
    ) {
        let checker = _Checker(
            monitor: monitor,
            heartbeat: watchesMainActor ? _MainActorHeartbeat() : nil,
            settings: settings,
            instrumentation: instrumentation,
            recorder: recorder
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
        let recorder: LoopFlightRecorder
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
            instrumentation: LoopInstrumentation,
            recorder: LoopFlightRecorder
        ) {
            self.recorder = recorder
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
            let now = _MonotonicClock.nanoseconds()
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
                let stall = stall(running, kind: .callback, duration: callbackTime, start: running.callbackStart)
                report(stall, start: running.callbackStart, isMainActor: false)
            } else if spanTime >= threshold && running.spanGeneration != reportedSpan {
                reportedSpan = running.spanGeneration
                monitor.watch(callback: 0, span: running.spanGeneration)
                let stall = stall(running, kind: .iteration, duration: spanTime, start: running.spanStart)
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
            let stall = LoopStall(
                label: "main actor",
                kind: .callback,
                duration: .nanoseconds(waited),
                startNanoseconds: start,
                lastEvents: lastEvents()
            )
            report(stall, start: start, isMainActor: true)
        }

        /// The report of the work `running` describes: its label (the site's, when it has one), its site, and what the
        /// recorder saw before it.
        private func stall(
            _ running: _StallMonitor.Snapshot,
            kind: LoopStall.Kind,
            duration: UInt64,
            start: UInt64
        ) -> LoopStall {
            LoopStall(
                label: running.site?.label ?? "\(running.label)",
                site: running.site,
                kind: kind,
                duration: .nanoseconds(Int64(clamping: duration)),
                startNanoseconds: start,
                lastEvents: lastEvents(),
                // Best effort, bounded: a thread that does not answer within the time leaves the report without one.
                backtrace: settings.backtraceTimeout > .zero
                    ? running.thread.flatMap { LoopBacktrace.capture(of: $0, timeout: settings.backtraceTimeout) } : nil
            )
        }

        /// The recorder's last events, for a report.
        private func lastEvents() -> [LoopFlightRecorder.Event] {
            Array(recorder.events().suffix(Self.eventsInReport))
        }

        /// How many of the recorder's events a report carries.
        static let eventsInReport = 32

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
            recorder.keepTotal(
                .nanoseconds(Int64(clamping: total)),
                ofStallStartedAt: ongoing.start,
                kind: ongoing.stall.kind
            )
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
                    "site": "\(stall.site?.location ?? "-")",
                    "backtrace": "\(stall.backtrace.map { "\n\($0)" } ?? "-")",
                    "kind": "\(stall.kind == .callback ? "callback" : "iteration")",
                    "duration_ms": "\(stall.duration.mainlineNanoseconds / 1_000_000)",
                    "threshold_ms": "\(threshold / 1_000_000)",
                ]
            )
            recorder.keep(stall, at: _MonotonicClock.nanoseconds())
            stalls.counter(for: stall.label).increment()
            settings.onStall?(stall)
        }

        private static func milliseconds(_ nanoseconds: UInt64) -> String {
            "\((Double(nanoseconds) / 1e5).rounded() / 10)"
        }
    }
}
