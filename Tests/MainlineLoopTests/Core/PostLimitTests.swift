import MainlineLoop
import MainlineTesting
import MetricsTestKit
import Testing

/// A limit on pending posts (`LoopBudgets.maxPendingPosts`, `tryPost`) and a bounded drain at shutdown
/// (`stop(drainDeadline:)`), on `TestLoop` in virtual time, with the metrics they report.
@MainActor
@Suite("Post limits and drain deadlines")
struct PostLimitTests {
    let metrics = TestMetrics()

    func instrumented(_ budgets: LoopBudgets = .default) -> TestLoop {
        let loop = TestLoop(budgets: budgets)
        loop.instrument(LoopInstrumentation(metricsFactory: metrics))
        return loop
    }

    func counterTotal(_ label: String) -> Int64 {
        (try? metrics.expectCounter(label).values.reduce(0, +)) ?? 0
    }

    @Test func aLoopWithALimitRefusesPostsBeyondItCountsThemAndReleasesTheirBodiesUnrun() {
        let loop = instrumented(LoopBudgets(postsPerIteration: 2, maxPendingPosts: 4))
        var ran: [Int] = []
        for index in 0..<4 { #expect(loop.tryPost { ran.append(index) } == .accepted) }
        var tracker: Tracker? = Tracker()
        let weakTracker = WeakBox(tracker)
        let refused = loop.tryPost { [tracker] in _ = tracker }
        #expect(refused == .full)
        tracker = nil
        #expect(weakTracker.object == nil, "a refused body is released at once, unrun")
        #expect(loop.post { ran.append(-1) } == false, "post says false when full")

        loop.runIteration()  // runs one budget (2): two of the four are still pending
        #expect(ran == [0, 1])
        #expect(loop.tryPost { ran.append(4) } == .accepted)
        #expect(loop.tryPost { ran.append(5) } == .accepted)
        #expect(loop.tryPost { ran.append(6) } == .full)

        loop.runUntilIdle()
        #expect(ran == [0, 1, 2, 3, 4, 5], "every accepted post ran once, in order; no refused one ran")
        #expect(counterTotal(LoopMetricName.postsRejected) == 3)
    }

    @Test func withoutALimitALoopIsNeverFull() {
        let loop = TestLoop()
        var ran = 0
        for _ in 0..<100_000 { #expect(loop.tryPost { ran += 1 } == .accepted) }
        loop.runUntilIdle()
        #expect(ran == 100_000)
    }

    @Test func changingTheLimitTakesEffectForTheNextPost() {
        let loop = TestLoop(budgets: LoopBudgets(maxPendingPosts: 1))
        #expect(loop.tryPost {} == .accepted)
        #expect(loop.tryPost {} == .full)
        loop.budgets.maxPendingPosts = 3
        #expect(loop.tryPost {} == .accepted)
        #expect(loop.tryPost {} == .accepted)
        #expect(loop.tryPost {} == .full)
        loop.budgets.maxPendingPosts = nil
        #expect(loop.tryPost {} == .accepted)
        loop.runUntilIdle()
        #expect(loop.postsRun == 4)
    }

    @Test func aStoppedLoopSaysStoppedEvenWhenFull() {
        let loop = TestLoop(budgets: LoopBudgets(maxPendingPosts: 1))
        #expect(loop.tryPost {} == .accepted)
        loop.stop()
        #expect(loop.tryPost {} == .stopped)
        #expect(loop.post {} == false)
    }

    @Test func aDrainDeadlineRunsOnlyThePostsThatStartBeforeItAndReportsTheRest() {
        let loop = instrumented()
        var ran: [Int] = []
        var tracker: Tracker? = Tracker()
        let weakTracker = WeakBox(tracker)
        for index in 0..<10 {
            loop.post { [tracker] in
                _ = tracker
                ran.append(index)
                loop.simulateBusy(for: .milliseconds(10))
            }
        }
        tracker = nil
        var hookRan = false
        loop.onShutdown { hookRan = true }
        loop.stop(drainDeadline: .milliseconds(25))
        loop.runIteration()  // the shutdown step
        #expect(ran == [0, 1, 2], "posts start at 0, 10 and 20 ms; the fourth would start at 30 ms, past 25")
        #expect(loop.postsDiscarded == 7)
        #expect(counterTotal(LoopMetricName.postsDiscarded) == 7)
        #expect(weakTracker.object == nil, "the bodies released unrun are freed")
        #expect(hookRan, "shutdown hooks still run after the deadline")
        #expect(loop.isStopped)
    }

    @Test func aZeroDrainDeadlineRunsNoPostedWork() {
        let loop = TestLoop()
        var ran = 0
        for _ in 0..<5 { loop.post { ran += 1 } }
        loop.stop(drainDeadline: .zero)
        loop.runIteration()
        #expect(ran == 0)
        #expect(loop.postsDiscarded == 5)
    }

    @Test func withoutADeadlineShutdownRunsEverythingAndDiscardsNothing() {
        let loop = TestLoop()
        var ran = 0
        for _ in 0..<5 {
            loop.post {
                ran += 1; loop.simulateBusy(for: .seconds(60))
            }
        }
        loop.stop()
        loop.runIteration()
        #expect(ran == 5)
        #expect(loop.postsDiscarded == 0)
    }

    @Test func theFirstStopDecidesTheDeadline() {
        let loop = TestLoop()
        var ran = 0
        for _ in 0..<5 { loop.post { ran += 1 } }
        loop.stop()
        loop.stop(drainDeadline: .zero)
        loop.runIteration()
        #expect(ran == 5)
    }
}
