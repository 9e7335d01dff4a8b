import MainlineLoop
import MainlineTesting
import Prometheus
import Testing

/// The recommended buckets through swift-prometheus's real factory and exposition, on `TestLoop` in virtual time.
@MainActor
@Suite("Loop timers in Prometheus")
struct LoopMetricNameBucketsTests {
    let loop = TestLoop()
    let registry = PrometheusCollectorRegistry()

    /// Instruments `loop` with a Prometheus factory; with the recommended buckets merged in when `recommended`.
    func instrument(recommended: Bool) {
        var factory = PrometheusMetricsFactory(registry: registry)
        if recommended {
            factory.durationHistogramBuckets.merge(LoopMetricName.recommendedTimerBuckets) { _, new in new }
        }
        loop.instrument(LoopInstrumentation(metricsFactory: factory))
    }

    /// The exposition lines of `metric`'s histogram: `le` bound → count, then `_sum` and `_count`.
    func histogram(_ metric: String) -> (buckets: [String: Int], sum: String?, count: Int?) {
        var buckets: [String: Int] = [:]
        var sum: String?
        var count: Int?
        for line in registry.emitToString().split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2 else { continue }
            let (name, value) = (String(parts[0]), String(parts[1]))
            if name.hasPrefix("\(metric)_bucket{le=\"") {
                let bound = name.dropFirst("\(metric)_bucket{le=\"".count).dropLast(2)
                buckets[String(bound)] = Int(value)
            } else if name == "\(metric)_sum" {
                sum = value
            } else if name == "\(metric)_count" {
                count = Int(value)
            }
        }
        return (buckets, sum, count)
    }

    @Test func aNormalIterationLandsInABucketBelowOneMillisecond() {
        instrument(recommended: true)
        loop.post { loop.simulateBusy(for: .microseconds(76)) }
        loop.runIteration()

        let iteration = histogram(LoopMetricName.iterationDuration)
        // Rendered in seconds: 76 µs is above the 50 µs bucket and inside the 100 µs one (and every one after it).
        #expect(iteration.buckets["0.00005"] == 0)
        #expect(iteration.buckets["0.0001"] == 1)
        #expect(iteration.buckets["0.001"] == 1)
        #expect(iteration.buckets["+Inf"] == 1)
        #expect(iteration.sum == "0.000076")
        #expect(iteration.count == 1)
        #expect(iteration.buckets.count == LoopMetricName.recommendedTimerBucketBounds.count + 1)
    }

    @Test func timerLagIsRenderedWithTheSameBuckets() {
        instrument(recommended: true)
        loop.schedule(after: .milliseconds(1)) {}
        loop.post { loop.simulateBusy(for: .microseconds(1_300)) }
        loop.runIteration()  // busy until 1.3 ms
        loop.runIteration()  // the timer fires 300 µs late

        let lag = histogram(LoopMetricName.timerLag)
        #expect(lag.buckets["0.00025"] == 0)
        #expect(lag.buckets["0.0005"] == 1)
        #expect(lag.sum == "0.0003")
        #expect(lag.count == 1)
    }

    @Test func withoutTheRecommendedBucketsEveryNormalIterationFallsIntoTheFirstBucket() {
        instrument(recommended: false)
        loop.post { loop.simulateBusy(for: .microseconds(76)) }
        loop.runIteration()
        loop.post { loop.simulateBusy(for: .microseconds(900)) }
        loop.runIteration()

        // swift-prometheus's default buckets start at 5 ms: the histogram cannot tell 76 µs from 900 µs.
        let iteration = histogram(LoopMetricName.iterationDuration)
        #expect(iteration.buckets.keys.compactMap { Double($0) }.min() == 0.005)
        #expect(iteration.buckets["0.005"] == 2)
        #expect(iteration.buckets["0.0001"] == nil)
    }

    @Test func theRecommendedBucketsCoverEveryTimerTheLoopReportsFromMicrosecondsToSeconds() {
        #expect(
            Set(LoopMetricName.recommendedTimerBuckets.keys) == [
                LoopMetricName.iterationDuration, LoopMetricName.timerLag,
            ]
        )
        let bounds = LoopMetricName.recommendedTimerBucketBounds
        #expect(bounds == bounds.sorted())
        #expect(bounds.first == .microseconds(10))
        #expect(bounds.last == .seconds(10))
        #expect(bounds.contains(.milliseconds(1)))
    }
}
