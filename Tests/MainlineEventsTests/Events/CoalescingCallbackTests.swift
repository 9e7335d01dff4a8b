import MainlineEvents
import MainlineLoop
import MainlineTesting
import Testing

/// `CoalescingCallback`: one call per settle however many schedules, cancellation (spec/events.md).
@MainActor
@Suite("CoalescingCallback")
struct CoalescingCallbackTests {
    @Test func manySchedulesMakeOneCallInSettle() {
        let loop = TestLoop()
        var calls = 0
        let callback = CoalescingCallback(loop: loop) { calls += 1 }
        loop.post {
            for _ in 0..<100 { callback.schedule() }
            #expect(calls == 0, "never synchronous")
        }
        loop.runIteration()
        #expect(calls == 1)
        loop.runUntilIdle()
        #expect(calls == 1)
    }

    @Test func schedulingFromTheBlockSchedulesOneMoreCall() {
        let loop = TestLoop()
        final class Box { var callback: CoalescingCallback? }
        let box = Box()
        var calls = 0
        box.callback = CoalescingCallback(loop: loop) {
            calls += 1
            if calls < 3 {
                box.callback?.schedule()
                box.callback?.schedule()
            }
        }
        box.callback?.schedule()
        loop.runUntilIdle()
        #expect(calls == 3)
    }

    @Test func cancelWithdrawsAPendingCallAndIgnoresLaterSchedules() {
        let loop = TestLoop()
        var calls = 0
        let callback = CoalescingCallback(loop: loop) { calls += 1 }
        loop.post {
            callback.schedule()
            callback.cancel()
            callback.schedule()
        }
        loop.runUntilIdle()
        #expect(calls == 0)
        #expect(callback.isCancelled)
        callback.schedule()
        loop.runUntilIdle()
        #expect(calls == 0)
        callback.cancel()
        #expect(callback.isCancelled, "idempotent")
    }

    @Test func cancelReleasesTheBlock() {
        let loop = TestLoop()
        final class Captured {}
        var captured: Captured? = Captured()
        weak let weakCaptured = captured
        let callback = CoalescingCallback(loop: loop) { [captured] in _ = captured }
        captured = nil
        #expect(weakCaptured != nil)
        callback.cancel()
        #expect(weakCaptured == nil)
    }

    @Test func aCallbackDeallocatedWhilePendingIsNeverCalled() {
        let loop = TestLoop()
        var calls = 0
        var callback: CoalescingCallback? = CoalescingCallback(loop: loop) { calls += 1 }
        loop.post { [callback] in callback?.schedule() }
        callback!.schedule()
        callback = nil
        loop.runUntilIdle()
        #expect(calls == 0)
    }
}
