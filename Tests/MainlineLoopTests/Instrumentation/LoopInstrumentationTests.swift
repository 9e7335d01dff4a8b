import MainlineLoop
import MainlineTesting
import MetricsTestKit
import Testing

/// The loop's metrics, on `TestLoop` in virtual time: exact values, one report per iteration.
@MainActor
@Suite("Loop instrumentation")
struct LoopInstrumentationTests {
    let loop = TestLoop()
    let metrics = TestMetrics()

    init() {
        loop.instrument(LoopInstrumentation(metricsFactory: metrics))
    }

    func timerValues(_ label: String) throws -> [Int64] { try metrics.expectTimer(label).values }
    func counterValues(_ label: String) throws -> [Int64] { try metrics.expectCounter(label).values }

    @Test func timerLagIsHowLateTheLatestTimerOfAnIterationFired() throws {
        loop.schedule(after: .milliseconds(100)) {}
        loop.schedule(after: .milliseconds(150)) {}
        loop.post { loop.simulateBusy(for: .milliseconds(300)) }
        loop.runIteration()  // the post keeps the loop busy until 300 ms
        loop.runIteration()  // both timers fire at 300 ms: 200 and 150 ms late
        #expect(try timerValues(LoopMetricName.timerLag) == [200_000_000])
        #expect(try counterValues(LoopMetricName.timersFired) == [2])
    }

    @Test func timersFiredOnTimeHaveNoLag() throws {
        loop.scheduleRepeating(every: .milliseconds(10)) { _ in }
        loop.advance(by: .milliseconds(30))
        #expect(try timerValues(LoopMetricName.timerLag) == [0, 0, 0])
    }

    @Test func iterationDurationIsTheTimeSpentInTheLoopsPhases() throws {
        loop.post { loop.simulateBusy(for: .milliseconds(30)) }
        loop.post { loop.simulateBusy(for: .milliseconds(12)) }
        loop.runIteration()
        loop.requestSettle(SettleNotification { loop.simulateBusy(for: .milliseconds(5)) })
        loop.runIteration()
        #expect(try timerValues(LoopMetricName.iterationDuration) == [42_000_000, 5_000_000])
    }

    @Test func aSignalHandlerIsMeasuredOnce() throws {
        loop.onSignal(.sighup) { _ in loop.simulateBusy(for: .milliseconds(7)) }
        loop.raise(.sighup)  // delivered by a post: a phase inside the post phase
        loop.runIteration()
        #expect(try timerValues(LoopMetricName.iterationDuration) == [7_000_000])
    }

    @Test func postsAreReportedOncePerIterationAndTheQueueDepthIsWhatTheBudgetLeft() throws {
        loop.budgets = LoopBudgets(postsPerIteration: 4)
        for _ in 0..<10 { loop.post {} }
        loop.runUntilIdle()
        // One increment per iteration, never one per post.
        #expect(try counterValues(LoopMetricName.posts) == [4, 4, 2])
        #expect(try metrics.expectMeter(LoopMetricName.postQueueDepth).values == [6, 2, 0])
    }

    @Test func settleTriggersAndDeliveriesGiveTheCoalescingRatio() throws {
        let notification = SettleNotification {}
        loop.post {
            for _ in 0..<5 { loop.requestSettle(notification) }
        }
        loop.runIteration()
        #expect(try counterValues(LoopMetricName.settleTriggers) == [5])
        #expect(try counterValues(LoopMetricName.settleDeliveries) == [1])
    }

    @Test func anIterationThatDidNothingReportsNothing() throws {
        loop.runIteration()
        loop.advance(by: .seconds(1))
        #expect(metrics.timers(label: LoopMetricName.iterationDuration).allSatisfy { $0.values.isEmpty })
        #expect(metrics.counters(label: LoopMetricName.posts).allSatisfy { $0.values.isEmpty })
    }

    @Test func dimensionsAreAddedToEveryMetric() throws {
        let metrics = TestMetrics()
        let loop = TestLoop()
        loop.instrument(LoopInstrumentation(metricsFactory: metrics, dimensions: [("loop", "main")]))
        loop.post {}
        loop.runIteration()
        #expect(try metrics.expectCounter(LoopMetricName.posts, [("loop", "main")]).values == [1])
        #expect(try metrics.expectTimer(LoopMetricName.iterationDuration, [("loop", "main")]).values == [0])
    }

    @Test func removingTheInstrumentationStopsTheReports() throws {
        loop.post {}
        loop.runIteration()
        loop.instrument(nil)
        loop.post {}
        loop.runIteration()
        #expect(try counterValues(LoopMetricName.posts) == [1])
    }

    @Test func stoppingTheLoopReportsTheWorkItsShutdownRan() throws {
        for _ in 0..<3 { loop.post {} }
        loop.stop()
        loop.runIteration()
        #expect(loop.isStopped)
        #expect(try counterValues(LoopMetricName.posts) == [3])
    }
}
