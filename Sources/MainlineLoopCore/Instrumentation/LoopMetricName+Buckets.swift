// Histogram buckets that suit the loop's timers, for metrics backends such as swift-prometheus.

extension LoopMetricName {
    /// The upper bounds of the recommended buckets for the loop's timers: 10 µs to 10 s on a 1–2.5–5 scale.
    ///
    /// Thread-safe (a constant). For backends other than Prometheus that take a list of bounds; with
    /// swift-prometheus use ``recommendedTimerBuckets``.
    public static let recommendedTimerBucketBounds: [Duration] = [
        .microseconds(10), .microseconds(25), .microseconds(50),
        .microseconds(100), .microseconds(250), .microseconds(500),
        .milliseconds(1), .microseconds(2_500), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .milliseconds(2_500), .seconds(5),
        .seconds(10),
    ]

    /// The recommended buckets of every timer the loop reports, keyed by metric label: the shape of
    /// swift-prometheus 2's `PrometheusMetricsFactory.durationHistogramBuckets`.
    ///
    /// Thread-safe (a constant). Holds ``iterationDuration`` and ``timerLag``, each with
    /// ``recommendedTimerBucketBounds``.
    ///
    /// The loop's timers measure tens of microseconds in a healthy service — an iteration averages about 76 µs on a
    /// 2-core VM — and up to seconds when the loop stalls. A backend's default buckets are usually made for
    /// requests: swift-prometheus's start at 5 ms, so every healthy iteration falls into the first bucket and the
    /// histogram says nothing.
    ///
    /// With swift-prometheus 2, merge them into the factory before the loop is instrumented (buckets are chosen when
    /// a timer is created). The one line needs no Mainline product beyond `MainlineLoop`:
    ///
    /// ```swift
    /// import MainlineLoop
    /// import Prometheus
    ///
    /// var factory = PrometheusMetricsFactory(registry: registry)
    /// factory.durationHistogramBuckets.merge(LoopMetricName.recommendedTimerBuckets) { _, recommended in recommended }
    /// MainLoop.main.instrument(LoopInstrumentation(metricsFactory: factory))
    /// ```
    ///
    /// Prometheus then renders the loop's timers in seconds, as its conventions ask: `le="0.0001"` is the 100 µs
    /// bucket and `_sum` is in seconds, although the loop records nanoseconds through swift-metrics.
    ///
    /// - Note: swift-prometheus looks buckets up by the label its `nameAndLabelSanitizer` returns. A sanitizer that
    ///   renames the loop's metrics needs the buckets under the new names.
    public static let recommendedTimerBuckets: [String: [Duration]] = [
        iterationDuration: recommendedTimerBucketBounds,
        timerLag: recommendedTimerBucketBounds,
    ]
}
