import Foundation
import MainlineLoop
import MainlineTesting
import Testing

@MainActor
@Suite("TestLoop posts")
struct TestLoopPostTests {
    @Test func postNeverRunsSynchronouslyAndPostsRunInOrderAtTheNextStep() {
        let loop = TestLoop()
        let log = Log()
        for index in 0..<5 { #expect(loop.post { log.add("\(index)") }) }
        #expect(log.entries.isEmpty)
        loop.runIteration()
        #expect(log.entries == ["0", "1", "2", "3", "4"])
        #expect(!loop.hasPendingWork)
    }

    @Test func runUntilStepsTheLoopWhileOtherTasksPostAndGivesUpAfterItsAttempts() async {
        let loop = TestLoop()
        @MainActor final class Count { var received = 0 }
        let count = Count()
        let producer = Task.detached {
            for _ in 0..<100 { loop.post { count.received += 1 } }
        }
        #expect(await loop.run(until: { count.received == 100 }))
        await producer.value
        #expect(count.received == 100)
        #expect(await loop.run(until: { count.received == 101 }, attempts: 3) == false, "gives up instead of hanging")
        #expect(loop.now == .zero, "virtual time does not move")
    }

    @Test func runUntilStepsThroughMoreBusyIterationsThanRunUntilIdleAllowsWithoutCallingItMisuse() async {
        // A worker posted 25,000 bodies and the budget runs one per iteration: the loop is busy for 25,000 iterations
        // in a row, past the 10,000 one attempt runs. Work from other threads is not misuse, and waiting for it is what
        // `run(until:)` is for, so it steps on and reports nothing.
        let loop = TestLoop(budgets: LoopBudgets(postsPerIteration: 1))
        @MainActor final class Count { var received = 0 }
        let count = Count()
        await Task.detached {
            for _ in 0..<25_000 { loop.post { count.received += 1 } }
        }.value
        let diagnostics = DiagnosticsRecorder()
        #expect(await diagnostics.record { await loop.run(until: { count.received == 25_000 }) })
        #expect(diagnostics.kinds.isEmpty)
        #expect(!loop.hasPendingWork)
    }

    @Test func runUntilReportsALoopWhoseOwnSettleNotificationKeepsItBusyAndReturns() async {
        // A settle notification that requests itself again every round: the first attempt's 10,000 iterations all end
        // with it pending, so the call reports it once and returns instead of trying again.
        @MainActor final class Holder { var notification: SettleNotification? }
        let loop = TestLoop()
        let holder = Holder()
        let forever = SettleNotification { loop.requestSettle(holder.notification!) }
        holder.notification = forever
        loop.requestSettle(forever)
        let diagnostics = DiagnosticsRecorder()
        let held = await diagnostics.record { await loop.run(until: { false }, attempts: 2) }
        #expect(held == false)
        #expect(diagnostics.kinds == [.loopNeverIdle])
        forever.cancel()
        await loop.runUntilIdle()
    }

    @Test func postsRunCountsEveryPostedBodyTheLoopRanIncludingAtShutdown() {
        let loop = TestLoop(budgets: LoopBudgets(postsPerIteration: 2))
        for _ in 0..<3 { loop.post {} }
        #expect(loop.postsRun == 0)
        loop.runIteration()
        #expect(loop.postsRun == 2, "one budget")
        loop.post {}
        loop.stop()
        loop.runIteration()
        #expect(loop.postsRun == 4, "the shutdown step runs the rest")
    }

    @Test func everyPhaseMarksItsLoopAsRunningOnThisThreadAndOnlyThen() {
        let loop = TestLoop()
        let other = TestLoop()
        var seen: [String: Bool] = [:]
        #expect(!_RunningLoop.isRunning(loop), "outside a step")
        loop.schedule(after: .zero) {
            seen["timer"] = _RunningLoop.isRunning(loop)
            seen["other loop"] = _RunningLoop.isRunning(other)
        }
        loop.post {
            seen["post"] = _RunningLoop.isRunning(loop)
            loop.requestSettle(SettleNotification { seen["settle"] = _RunningLoop.isRunning(loop) })
        }
        loop.onSignal(.sighup) { _ in seen["signal"] = _RunningLoop.isRunning(loop) }
        loop.raise(.sighup)
        loop.runUntilIdle()
        other.post { seen["nested step restores"] = !_RunningLoop.isRunning(loop) && _RunningLoop.isRunning(other) }
        loop.post {
            other.runIteration()
            seen["after nested step"] = _RunningLoop.isRunning(loop)
        }
        loop.runUntilIdle()
        #expect(!_RunningLoop.isRunning(loop))
        #expect(
            seen == [
                "timer": true, "other loop": false, "post": true, "settle": true, "signal": true,
                "nested step restores": true, "after nested step": true,
            ]
        )
    }

    @Test func postsFromManyThreadsWaitForTheTestThenRunExactlyOnceInPerProducerOrder() async {
        let loop = TestLoop()
        let producers = 4
        let perProducer = 10_000
        @MainActor final class Seen {
            var next = [Int](repeating: 0, count: 4)
            var outOfOrder = 0
            var ran = 0
        }
        let seen = Seen()
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<producers {
                group.addTask {
                    for index in 0..<perProducer {
                        loop.post {
                            if seen.next[producer] != index { seen.outOfOrder += 1 }
                            seen.next[producer] = index + 1
                            seen.ran += 1
                        }
                    }
                }
            }
        }
        // Everything was posted, and nothing ran: the loop runs only when the test steps it.
        #expect(seen.ran == 0)
        await loop.runUntilIdle()
        #expect(seen.ran == producers * perProducer)
        #expect(seen.outOfOrder == 0)
    }

    @Test func onePostPhaseRunsAtMostOneBudgetAndTheRestInLaterIterations() {
        let loop = TestLoop(budgets: LoopBudgets(postsPerIteration: 3))
        var ran = 0
        for _ in 0..<7 { loop.post { ran += 1 } }
        loop.runIteration()
        #expect(ran == 3)
        loop.runIteration()
        #expect(ran == 6)
        loop.runIteration()
        #expect(ran == 7)
        #expect(!loop.hasPendingWork)
    }

    @Test func workPostedFromTheLoopRunsInTheNextIterationAfterThisIterationsSettle() {
        let loop = TestLoop()
        let log = Log()
        loop.post {
            log.add("first post")
            loop.requestSettle(SettleNotification { log.add("settled") })
            loop.post { log.add("posted from the loop") }
        }
        loop.runIteration()
        #expect(log.entries == ["first post", "settled"])
        loop.runIteration()
        #expect(log.entries == ["first post", "settled", "posted from the loop"])
    }

    @Test func aTimerDueDuringAFloodFiresAfterAtMostOneBudgetOfPosts() {
        let budget = 10
        let loop = TestLoop(budgets: LoopBudgets(postsPerIteration: budget))
        var postsRun = 0
        var postsRunWhenTheTimerFired: Int?
        for _ in 0..<1_000 { loop.post { postsRun += 1 } }
        loop.runIteration()
        loop.schedule(after: .zero) { postsRunWhenTheTimerFired = postsRun }
        loop.runUntilIdle()
        #expect(postsRun == 1_000)
        #expect(postsRunWhenTheTimerFired == budget)
    }

    @Test func postAfterStopIsRefusedAndTheBodyIsReleasedWithoutRunning() {
        final class Captured: Sendable {}
        let loop = TestLoop()
        loop.stop()
        weak var weakCaptured: Captured?
        var ran = false
        do {
            let captured = Captured()
            weakCaptured = captured
            #expect(
                !loop.post {
                    _ = captured; ran = true
                }
            )
        }
        #expect(weakCaptured == nil, "a refused body must not be kept")
        loop.runUntilIdle()
        #expect(!ran)
    }
}
