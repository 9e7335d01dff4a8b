import CoreMetrics

/// The metrics of one instrumented loop and the counts of the iteration in progress.
///
/// Must be used on the main actor (protected by the loop). Once per iteration the loop calls
/// ``endIteration(probe:queueDepth:rejections:deliveries:dropSources:)``, which reads what the phases' probe measured
/// (busy time, posts run, timers fired: the progress counters' growth since the last report) and hands the totals to
/// swift-metrics: one call per metric per iteration that did work, however many posts or timers it ran.
@MainActor
package final class _LoopInstruments {
    package let instrumentation: LoopInstrumentation
    /// The watchdog thread, when one was asked for.
    package let watchdog: (any _LoopWatching)?

    private let timerLag: CoreMetrics.Timer
    private let iterationDuration: CoreMetrics.Timer
    private let postQueueDepth: Meter
    private let posts: Counter
    private let postsRejected: Counter
    private let postsDiscarded: Counter
    private let timersFired: Counter
    private let settleTriggers: Counter
    private let settleDeliveries: Counter
    private var mailboxDrops: _CountersByDimension

    // The iteration in progress.
    /// The lateness of the latest timer fired, in nanoseconds.
    var maxTimerLag: Int64 = 0
    var triggers = 0
    /// The settle queue's delivery count when it was last reported.
    private var deliveriesReported: Int
    /// The post queue's rejection count when it was last reported.
    private var rejectionsReported = 0
    /// The progress counters' posts run and timers fired when they were last reported.
    private var postsReported: Int
    private var timersReported: Int

    init(
        _ instrumentation: LoopInstrumentation,
        deliveriesSoFar: Int,
        progress: _LoopProgress,
        recorder: LoopFlightRecorder,
        watchesMainActor: Bool
    ) {
        self.instrumentation = instrumentation
        mailboxDrops = _CountersByDimension(
            label: LoopMetricName.mailboxDrops,
            dimension: "mailbox",
            instrumentation: instrumentation
        )
        let factory = instrumentation.metricsFactory
        let dimensions = instrumentation.dimensions
        timerLag = CoreMetrics.Timer(label: LoopMetricName.timerLag, dimensions: dimensions, factory: factory)
        iterationDuration = CoreMetrics.Timer(
            label: LoopMetricName.iterationDuration,
            dimensions: dimensions,
            factory: factory
        )
        postQueueDepth = Meter(label: LoopMetricName.postQueueDepth, dimensions: dimensions, factory: factory)
        posts = Counter(label: LoopMetricName.posts, dimensions: dimensions, factory: factory)
        postsRejected = Counter(label: LoopMetricName.postsRejected, dimensions: dimensions, factory: factory)
        postsDiscarded = Counter(label: LoopMetricName.postsDiscarded, dimensions: dimensions, factory: factory)
        timersFired = Counter(label: LoopMetricName.timersFired, dimensions: dimensions, factory: factory)
        settleTriggers = Counter(label: LoopMetricName.settleTriggers, dimensions: dimensions, factory: factory)
        settleDeliveries = Counter(label: LoopMetricName.settleDeliveries, dimensions: dimensions, factory: factory)
        deliveriesReported = deliveriesSoFar
        postsReported = progress.postsRun
        timersReported = progress.timersFired
        watchdog = instrumentation.watchdogSettings.map {
            $0.start(instrumentation: instrumentation, recorder: recorder, watchesMainActor: watchesMainActor)
        }
    }

    /// A timer fires `lag` nanoseconds after its deadline (the progress counters count it).
    @inline(__always)
    package func timerFired(lateBy lag: Int64) {
        if lag > maxTimerLag { maxTimerLag = lag }
    }

    /// Reports posts released unrun because a drain deadline passed.
    func discardedPosts(_ count: Int) {
        if count > 0 { postsDiscarded.increment(by: Int64(count)) }
    }

    /// Hands the iteration's totals to swift-metrics, if it did any work, and starts the next one.
    ///
    /// - Parameters:
    ///   - probe: The phases' probe: its busy time and progress counters.
    ///   - queueDepth: Reads how many posts wait for a later iteration (read only when reporting).
    ///   - rejections: Reads the post queue's count of posts refused by its limit; `nil` when it has none.
    ///   - deliveries: The settle queue's delivery count so far.
    ///   - dropSources: The named mailboxes; each reports what it dropped since it was last read.
    package func endIteration(
        probe: _LoopProbe,
        queueDepth: () -> Int,
        rejections: () -> Int?,
        deliveries: Int,
        dropSources: inout [_DropSource]
    ) {
        let (busyNanoseconds, ranOtherWork) = probe.takeIterationTotals()
        let busy = Int64(clamping: busyNanoseconds)
        let postsSoFar = probe.progress.postsRun
        let timersSoFar = probe.progress.timersFired
        let postsRun = postsSoFar - postsReported
        let timerFirings = timersSoFar - timersReported
        postsReported = postsSoFar
        timersReported = timersSoFar
        let delivered = deliveries - deliveriesReported
        let didWork = postsRun > 0 || timerFirings > 0 || delivered > 0 || triggers > 0 || busy > 0 || ranOtherWork
        guard didWork else { return }
        deliveriesReported = deliveries
        if postsRun > 0 { posts.increment(by: Int64(postsRun)) }
        if timerFirings > 0 {
            timersFired.increment(by: Int64(timerFirings))
            timerLag.recordNanoseconds(maxTimerLag)
        }
        if triggers > 0 { settleTriggers.increment(by: Int64(triggers)) }
        if delivered > 0 { settleDeliveries.increment(by: Int64(delivered)) }
        iterationDuration.recordNanoseconds(busy)
        postQueueDepth.set(queueDepth())
        if let rejected = rejections(), rejected > rejectionsReported {
            postsRejected.increment(by: Int64(rejected - rejectionsReported))
            rejectionsReported = rejected
        }
        reportDrops(&dropSources)
        maxTimerLag = 0
        triggers = 0
    }

    private func reportDrops(_ sources: inout [_DropSource]) {
        var index = 0
        while index < sources.count {
            guard let dropped = sources[index].dropped() else {
                sources.remove(at: index)  // the mailbox is gone
                continue
            }
            let new = dropped - sources[index].reported
            if new > 0 {
                sources[index].reported = dropped
                mailboxDrops.counter(for: sources[index].name).increment(by: Int64(new))
            }
            index += 1
        }
    }

}

/// A named mailbox whose drops the loop reports: how to read its drop count, and what was reported so far.
///
/// Must be used on the main actor (the loop's core holds the list).
package struct _DropSource {
    package let name: String
    /// The mailbox's drop count so far, or `nil` once the mailbox is gone.
    package let dropped: @Sendable () -> Int?
    /// What was reported to the metrics so far.
    var reported = 0
    /// What was kept in the flight recorder so far.
    var recorded = 0
}
