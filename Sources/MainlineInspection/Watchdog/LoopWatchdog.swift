import CoreMetrics
import Logging
import MainlineLoop
import MainlineLoopCore

/// The stall watchdog's settings: how long one callback or one iteration may hold the loop before it is reported.
///
/// `LoopWatchdog` is a value type; all operations on it are thread-safe. Install it as part of a
/// `LoopInstrumentation`.
///
/// The watchdog is a thread of its own that looks at the loop in real time. While a watchdog is installed, the loop
/// stamps the start of every callback (a post, a timer, the settle phase, a signal handler, a shutdown hook, a
/// main-queue drain in owner mode) with its label. When one callback — or one iteration made of many callbacks —
/// has held the loop for ``threshold``, the watchdog reports it **once**: a `warning` on the instrumentation's
/// logger naming the label and how long, one increment of `mainline_loop_stalls` (dimension `label`), and a call to
/// ``onStall``. The loop itself is not interrupted: the report is how a service learns that something blocks it.
///
/// Labels come from `Loop.post(label:fileID:line:_:)`, `Loop.schedule(after:label:fileID:line:_:)` and
/// `Loop.scheduleRepeating(every:label:fileID:line:_:)`; unlabelled work reports `post`, `timer`, `idle`, `settle`,
/// `signal`, `shutdown hook` or `main queue`. A report names the site of the running work too (the line that posted
/// or scheduled it), carries the flight recorder's last events before the stall (`LoopStall.lastEvents`), and is
/// kept in the flight recorder (`LoopFlightRecorder.stallsKept`).
///
/// On `MainLoop` the watchdog also sees main-actor work that is not one of the loop's callbacks: in guest mode a
/// block inside `await MainActor.run {}` or a `Task { @MainActor in }` runs on the dispatch main queue beside the loop.
/// The watchdog keeps a heartbeat queued there; when it waits past the threshold while the loop runs nothing of its
/// own, the stall is reported once, labelled `main actor`.
///
/// - Important: Reading the backtrace interrupts the loop thread with a signal, and a thread asleep in `usleep`,
///   `nanosleep` or `sleep` wakes from it early (the call returns `EINTR`). A demo job that "holds the loop" with
///   `usleep(300_000)` runs until the first capture, about one threshold, not 300 ms. Hold it with
///   `Thread.sleep(forTimeInterval:)`, which sleeps again for what remains, or with real work (or set
///   ``backtraceTimeout`` to `.zero`). Waits on locks and condition variables are not disturbed.
///
/// - Note: A stall is detected within a quarter of the threshold of crossing it; the reported `LoopStall.duration`
///   is how long the work had held the loop at that moment ("has held the loop for at least …"). When the stall ends,
///   the watchdog logs its total ("… held the loop for 312.5 ms in total"), within a quarter of the threshold.
public struct LoopWatchdog: Sendable, _LoopWatchdogStarting {
    /// How long one callback or iteration may hold the loop before it counts as a stall.
    public var threshold: Duration
    /// Called on the watchdog's thread with every stall it reports, after logging and counting it.
    public var onStall: (@Sendable (LoopStall) -> Void)?
    /// Whether a `MainLoop`'s watchdog also reports main-actor work that is not one of the loop's callbacks (a
    /// heartbeat on the dispatch main queue; see above). On by default; a `TestLoop`'s watchdog never does.
    public var watchesMainActor: Bool
    /// How long the watchdog waits for the loop thread's backtrace (`LoopStall.backtrace`) before it reports a
    /// stall without one: 200 ms unless you say otherwise; `.zero` captures none.
    ///
    /// The capture interrupts the loop thread with a signal (see `LoopBacktrace`); on a machine
    /// whose cores are all busy, the thread may wait that long for one. The watchdog's thread waits meanwhile, so the
    /// report (and any other stall's) comes that much later.
    public var backtraceTimeout: Duration = .milliseconds(200)
    /// Called on the watchdog's thread after every check (for the package's tests).
    package var onCheck: (@Sendable () -> Void)?

    /// Creates watchdog settings.
    ///
    /// - Parameters:
    ///   - threshold: How long one callback or iteration may hold the loop; at least one millisecond (shorter
    ///     thresholds are treated as one millisecond).
    ///   - watchesMainActor: Whether a `MainLoop`'s watchdog also reports main-actor work outside the loop's
    ///     callbacks, labelled `main actor`.
    ///   - onStall: Called on the watchdog's thread with every stall reported (for example, to dump state).
    public init(
        threshold: Duration = .milliseconds(250),
        watchesMainActor: Bool = true,
        onStall: (@Sendable (LoopStall) -> Void)? = nil
    ) {
        self.threshold = max(threshold, .milliseconds(1))
        self.watchesMainActor = watchesMainActor
        self.onStall = onStall
    }
}

extension LoopWatchdog {
    /// Starts the watchdog thread these settings describe, watching the loop whose recorder is `recorder`.
    /// Called on the loop's main actor by `_LoopCore.instrument(_:watchesMainActor:)`.
    package func start(
        instrumentation: LoopInstrumentation,
        recorder: LoopFlightRecorder,
        watchesMainActor: Bool
    ) -> any _LoopWatching {
        _StallWatchdog(
            settings: self,
            instrumentation: instrumentation,
            recorder: recorder,
            watchesMainActor: watchesMainActor && self.watchesMainActor
        )
    }
}

extension LoopInstrumentation {
    /// Creates an instrumentation with a stall watchdog.
    ///
    /// - Parameters:
    ///   - metricsFactory: Where the metrics go; the bootstrapped `MetricsSystem.factory` by default.
    ///   - logger: Where stalls are logged.
    ///   - dimensions: Dimensions added to every metric.
    ///   - watchdog: The stall watchdog, or `nil` for none.
    public init(
        metricsFactory: any MetricsFactory = MetricsSystem.factory,
        logger: Logger = Logger(label: "mainline.loop"),
        dimensions: [(String, String)] = [],
        watchdog: LoopWatchdog?
    ) {
        self.init(metricsFactory: metricsFactory, logger: logger, dimensions: dimensions)
        self.watchdogSettings = watchdog
    }

    /// The stall watchdog; `nil` for none (no thread is started).
    public var watchdog: LoopWatchdog? {
        get { watchdogSettings as? LoopWatchdog }
        set { watchdogSettings = newValue }
    }
}
