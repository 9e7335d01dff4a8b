import CoreMetrics
import Logging

/// What a loop reports about itself, and where: metrics through swift-metrics, stalls through swift-log.
///
/// `LoopInstrumentation` is a value type; all operations on it are thread-safe. Install it on the loop's main actor
/// with `MainLoop.instrument(_:)` (or `TestLoop.instrument(_:)` from `MainlineTesting`), or hand it to `MainLoopService`:
///
/// ```swift
/// MainLoop.main.instrument(
///     LoopInstrumentation(
///         metricsFactory: MetricsSystem.factory,
///         logger: Logger(label: "my-service.loop"),
///         watchdog: LoopWatchdog(threshold: .milliseconds(200))
///     )
/// )
/// ```
///
/// Without instrumentation a loop does no measuring at all: the post and timer paths cost one predictable branch
/// more than they would without the feature. With it, the loop counts on the main actor in plain integers and hands
/// the totals of each iteration that did work to swift-metrics once, at the end of that iteration — never a metrics
/// call per post or per timer. The metrics (see ``LoopMetricName`` for the names):
///
/// | name | type | unit | meaning |
/// |---|---|---|---|
/// | `mainline_loop_timer_lag` | timer | ns | per iteration that fired timers: how late the latest of them fired |
/// | `mainline_loop_iteration_duration` | timer | ns | per iteration that did work: time spent running it |
/// | `mainline_loop_post_queue_depth` | meter | posts | at the end of each such iteration: posts still waiting |
/// | `mainline_loop_posts` | counter | posts | posted closures run (its rate is posts per second) |
/// | `mainline_loop_timers_fired` | counter | firings | timer firings |
/// | `mainline_loop_settle_triggers` | counter | requests | settle requests that reached the loop |
/// | `mainline_loop_settle_deliveries` | counter | deliveries | settle notifications delivered |
/// | `mainline_mailbox_drops` | counter | values | values a named mailbox dropped; dimension `mailbox` |
/// | `mainline_loop_stalls` | counter | stalls | stalls the `LoopWatchdog` reported; dimension `label` |
///
/// Every metric also carries ``dimensions``.
///
/// The timers are recorded in nanoseconds through swift-metrics' `Timer`; the backend decides how it exports them.
/// swift-prometheus renders a timer as a histogram in seconds (`le="0.0001"` is 100 µs, `_sum` is seconds), with
/// buckets that start at 5 ms unless told otherwise: give it ``LoopMetricName/recommendedTimerBuckets``.
///
/// - Note: Iteration time is the time spent in the loop's own phases (timers, posts, settle, signal handlers and,
///   in owner mode, draining the main dispatch queue), not the time spent waiting for I/O. In guest mode,
///   main-queue work that does not go through the loop is not measured.
public struct LoopInstrumentation: Sendable {
    /// Where the metrics go. Defaults to the process's `MetricsSystem.factory`; tests pass `TestMetrics`.
    public var metricsFactory: any MetricsFactory
    /// Where the watchdog logs stalls (at `warning`).
    public var logger: Logger
    /// Dimensions added to every metric, for example `[("loop", "main")]`.
    public var dimensions: [(String, String)]
    /// The stall watchdog's settings (`LoopInstrumentation.watchdog`, from MainlineInspection); `nil` for none (no
    /// thread is started).
    package var watchdogSettings: (any _LoopWatchdogStarting)?

    /// Creates an instrumentation.
    ///
    /// - Parameters:
    ///   - metricsFactory: Where the metrics go; the bootstrapped `MetricsSystem.factory` by default.
    ///   - logger: Where stalls are logged.
    ///   - dimensions: Dimensions added to every metric.
    ///
    /// A stall watchdog is added with `init(metricsFactory:logger:dimensions:watchdog:)` or the `watchdog` property,
    /// from MainlineInspection (which `Mainline` re-exports).
    public init(
        metricsFactory: any MetricsFactory = MetricsSystem.factory,
        logger: Logger = Logger(label: "mainline.loop"),
        dimensions: [(String, String)] = []
    ) {
        self.metricsFactory = metricsFactory
        self.logger = logger
        self.dimensions = dimensions
    }
}

/// Settings that start a stall watchdog: `LoopWatchdog`, from MainlineInspection. The core knows the watchdog only
/// through this and ``_LoopWatching``, so that the watchdog's thread and its backtraces stay in the inspection layer.
///
/// Thread-safe (a value).
package protocol _LoopWatchdogStarting: Sendable {
    /// Starts a watchdog watching the loop whose recorder is `recorder`. Called on the loop's main actor.
    ///
    /// - Parameters:
    ///   - instrumentation: Where the watchdog logs and counts stalls.
    ///   - recorder: The loop's flight recorder: a report carries its last events, and is kept in it.
    ///   - watchesMainActor: Whether the loop serves the main actor's other work too (the main loop).
    /// - Returns: The running watchdog.
    func start(
        instrumentation: LoopInstrumentation,
        recorder: LoopFlightRecorder,
        watchesMainActor: Bool
    ) -> any _LoopWatching
}

/// A running stall watchdog: the stamps the loop makes for it, and how to stop it. Thread-safe.
package protocol _LoopWatching: AnyObject, Sendable {
    /// What the loop is running now, stamped by the loop and read by the watchdog's thread.
    var monitor: _StallMonitor { get }
    /// Ends the watchdog's thread. Idempotent in effect.
    func stop()
}

/// The names of the metrics a loop reports through ``LoopInstrumentation``.
///
/// `LoopMetricName` is a namespace of constants; all operations on it are thread-safe.
///
/// Each name's unit is in its documentation. The timers are recorded in nanoseconds; swift-prometheus exports them
/// as histograms in seconds, with the buckets of ``recommendedTimerBuckets`` when given them.
public enum LoopMetricName {
    /// Timer (recorded in nanoseconds; Prometheus renders seconds): per iteration that fired timers, how late the
    /// latest of them fired (its firing time minus its deadline).
    public static let timerLag = "mainline_loop_timer_lag"
    /// Timer (recorded in nanoseconds; Prometheus renders seconds): per iteration that did work, the time spent in the
    /// loop's phases.
    public static let iterationDuration = "mainline_loop_iteration_duration"
    /// Meter (posts): at the end of each iteration that did work, how many posts wait for a later iteration.
    public static let postQueueDepth = "mainline_loop_post_queue_depth"
    /// Counter (posts): posted closures run.
    public static let posts = "mainline_loop_posts"
    /// Counter (posts): posts refused because the loop already held ``LoopBudgets/maxPendingPosts`` (their bodies
    /// were released unrun; `post` returned `false`, `tryPost` `.full`).
    public static let postsRejected = "mainline_loop_posts_rejected"
    /// Counter (posts): posts released unrun at shutdown because the drain deadline passed
    /// (`MainLoop.stop(drainDeadline:)`).
    public static let postsDiscarded = "mainline_loop_posts_discarded"
    /// Counter (firings): timer firings.
    public static let timersFired = "mainline_loop_timers_fired"
    /// Counter (requests): settle requests that reached the loop, including those that coalesced into a pending
    /// delivery. With ``settleDeliveries`` it gives the coalescing ratio.
    public static let settleTriggers = "mainline_loop_settle_triggers"
    /// Counter (deliveries): settle notifications delivered.
    public static let settleDeliveries = "mainline_loop_settle_deliveries"
    /// Counter (values), dimension `mailbox`: values a named mailbox dropped.
    public static let mailboxDrops = "mainline_mailbox_drops"
    /// Counter (stalls), dimension `label`: stalls reported by the `LoopWatchdog`.
    public static let stalls = "mainline_loop_stalls"
}
