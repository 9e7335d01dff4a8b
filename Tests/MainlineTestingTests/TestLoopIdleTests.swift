import Foundation
import MainlineLoop
import MainlineTesting
import Testing

@MainActor
@Suite("TestLoop idle phase")
struct TestLoopIdleTests {
    @Test func idleBodiesRunOnceInRegistrationOrderAfterPostsAndSettleOfTheStep() {
        let loop = TestLoop()
        let log = Log()
        let first = loop.whenIdle { log.add("idle 1") }
        loop.whenIdle { log.add("idle 2") }
        loop.post { log.add("post") }
        loop.requestSettle(SettleNotification { log.add("settle") })
        #expect(first.isActive)
        #expect(loop.hasPendingWork, "an idle body registered by the test is work due now")
        loop.runIteration()
        #expect(log.entries == ["post", "settle", "idle 1", "idle 2"])
        #expect(!first.isActive, "one-shot: the registration is spent once the body ran")
        loop.runIteration()
        #expect(log.entries.count == 4, "ran once only")
        #expect(!loop.hasPendingWork)
    }

    @Test func aSnapshotCountsPendingIdleBodiesAndShowsThemOnlyWhenThereAreSome() {
        let loop = TestLoop()
        loop.whenIdle {}
        let cancelled = loop.whenIdle {}
        loop.whenIdle {}
        cancelled.cancel()
        let pending = loop.snapshot()
        #expect(pending.pendingIdleBodies == 2)
        #expect(pending.description.contains("\n  settle: 0 pending, 0 delivered\n  idle: 2 pending\n  timers:"))
        loop.runIteration()
        let none = loop.snapshot()
        #expect(none.pendingIdleBodies == 0)
        #expect(!none.description.contains("idle:"))
    }

    @Test func idleWaitsWhileTheBudgetLeavesPostsWaiting() {
        let loop = TestLoop(budgets: LoopBudgets(postsPerIteration: 2))
        let log = Log()
        for index in 0..<3 { loop.post { log.add("post \(index)") } }
        loop.whenIdle { log.add("idle") }
        loop.runIteration()
        #expect(log.entries == ["post 0", "post 1"], "a post is still waiting: not idle")
        loop.runIteration()
        #expect(log.entries == ["post 0", "post 1", "post 2", "idle"])
    }

    @Test func anIdleBodyRegisteredWhileATimerIsDueRunsAfterTheTimerAndThePostsOfTheStep() {
        let loop = TestLoop()
        let log = Log()
        loop.schedule(after: .milliseconds(5)) { log.add("timer at \(loop.now)") }
        loop.simulateBusy(for: .milliseconds(5))
        loop.whenIdle { log.add("idle at \(loop.now)") }
        loop.post { log.add("post") }
        loop.runIteration()
        let fiveMs = LoopInstant.zero + .milliseconds(5)
        #expect(log.entries == ["timer at \(fiveMs)", "post", "idle at \(fiveMs)"])
    }

    @Test func idleWaitsForATimerThatBecameDueNowDuringTheStep() {
        let loop = TestLoop()
        let log = Log()
        loop.schedule(after: .milliseconds(10)) { log.add("timer 10 ms") }
        loop.post {
            log.add("post")
            loop.schedule(after: .zero) { log.add("timer due now") }
        }
        loop.whenIdle { log.add("idle at \(loop.now)") }
        loop.runIteration()
        #expect(log.entries == ["post"], "a timer is due now: not idle")
        loop.runIteration()
        #expect(
            log.entries == ["post", "timer due now", "idle at \(LoopInstant.zero)"],
            "then idle runs, before the loop would wait for the 10 ms timer"
        )
        loop.advance(by: .milliseconds(10))
        #expect(log.entries.last == "timer 10 ms")
        #expect(!loop.hasPendingWork)
    }

    @Test func advanceRunsAnIdleBodyBeforeMovingTimeToTheNextTimer() {
        let loop = TestLoop()
        let log = Log()
        loop.schedule(after: .milliseconds(5)) { log.add("timer at \(loop.now)") }
        loop.whenIdle { log.add("idle at \(loop.now)") }
        loop.advance(by: .milliseconds(10))
        #expect(log.entries == ["idle at \(LoopInstant.zero)", "timer at \(LoopInstant.zero + .milliseconds(5))"])
    }

    @Test func workPostedOrSettledByAnIdleBodyRunsInTheNextStep() {
        let loop = TestLoop()
        let log = Log()
        loop.whenIdle {
            log.add("idle")
            loop.post { log.add("posted by idle") }
            loop.requestSettle(SettleNotification { log.add("settled by idle") })
        }
        loop.runIteration()
        #expect(log.entries == ["idle"])
        #expect(loop.hasPendingWork, "the loop does not wait while that work is pending")
        loop.runIteration()
        #expect(log.entries == ["idle", "posted by idle", "settled by idle"])
        #expect(!loop.hasPendingWork)
    }

    @Test func aBodyRegisteredByACallbackRunsInTheIdlePhaseOfThatStep() {
        let loop = TestLoop()
        let log = Log()
        loop.post { loop.whenIdle { log.add("idle") } }
        loop.runIteration()
        #expect(log.entries == ["idle"])
    }

    @Test func aSelfReRegisteringBodyRunsOncePerStepAndLetsRunUntilIdleEnd() {
        let loop = TestLoop()
        @MainActor final class Count { var runs = 0 }
        let count = Count()
        @MainActor func register() {
            loop.whenIdle {
                count.runs += 1
                register()
            }
        }
        register()
        #expect(loop.runUntilIdle() == 1, "the re-registration does not count as work due now")
        #expect(count.runs == 1)
        #expect(!loop.hasPendingWork)
        loop.runIteration()
        loop.runIteration()
        #expect(count.runs == 3, "once per step")
        loop.post {}
        #expect(loop.runUntilIdle() == 1)
        #expect(count.runs == 4, "a step run for a post gives it its next turn")
    }

    @Test func cancelledBodiesDoNotRunAndCancelIsIdempotentFromAnyThread() async {
        let loop = TestLoop()
        let log = Log()
        let cancelled = loop.whenIdle { log.add("cancelled") }
        loop.whenIdle { log.add("kept") }
        await Task.detached {
            cancelled.cancel()
            cancelled.cancel()
        }.value
        #expect(!cancelled.isActive)
        await loop.runUntilIdle()
        #expect(log.entries == ["kept"])
    }

    @Test func aBodyCancelledByAnEarlierBodyOfTheSamePhaseDoesNotRun() {
        let loop = TestLoop()
        let log = Log()
        var second: IdleRegistration?
        loop.whenIdle {
            log.add("first")
            second?.cancel()
        }
        second = loop.whenIdle { log.add("second") }
        loop.runIteration()
        #expect(log.entries == ["first"])
    }

    @Test func aRegistrationFromAnotherThreadIsWorkDueNow() async {
        let loop = TestLoop()
        @MainActor final class Flag { var ran = false }
        let flag = Flag()
        await Task.detached { _ = loop.whenIdle { flag.ran = true } }.value
        #expect(loop.hasPendingWork)
        await #expect(loop.runUntilIdle() == 1)
        #expect(flag.ran)
    }

    @Test func stopReleasesPendingIdleBodiesUnrunAndLaterRegistrationsAreSpent() {
        let loop = TestLoop()
        final class Token: Sendable {}
        weak var released: Token?
        let log = Log()
        do {
            let token = Token()
            released = token
            let registration = loop.whenIdle {
                _ = token
                log.add("idle")
            }
            loop.post { log.add("post") }
            loop.stop()
            loop.runUntilIdle()
            #expect(!registration.isActive)
        }
        #expect(log.entries == ["post"], "posts drain; the stopping loop is never idle")
        #expect(released == nil, "the body and what it captured were released")
        let late = loop.whenIdle { log.add("late") }
        #expect(!late.isActive)
        #expect(!loop.hasPendingWork)
    }
}
