import Dispatch
import MainlineEvents
import MainlineLoop
import MainlineTesting
import Testing

/// `LazySimpleEvent`: coalesced delivery in the settle phase, from any thread (spec/events.md, DESIGN.md §3).
@MainActor
@Suite("LazySimpleEvent")
struct LazySimpleEventTests {
    @Test func triggersFromALoopCallbackAreDeliveredOnceInThatIterationsSettleNeverSynchronously() {
        let loop = TestLoop()
        let event = LazySimpleEvent(loop: loop)
        let log = Log()
        var token: SimpleEventToken?
        event.addObserver(&token) { _ in log.add("delivered at \(milliseconds(loop)) ms") }
        loop.schedule(after: .milliseconds(10)) {
            for _ in 0..<5 { event.trigger() }
            log.add("timer returned")
        }
        loop.schedule(after: .milliseconds(20)) { log.add("next timer") }
        loop.advance(by: .milliseconds(20))
        #expect(log.entries == ["timer returned", "delivered at 10 ms", "next timer"])
        _ = token
    }

    @Test func aTriggerOutsideTheLoopIsDeliveredAtTheNextStep() {
        let loop = TestLoop()
        let event = LazySimpleEvent(loop: loop)
        var deliveries = 0
        var token: SimpleEventToken?
        event.addObserver(&token) { _ in deliveries += 1 }
        event.trigger()
        event.trigger()
        #expect(deliveries == 0, "never synchronous")
        loop.runIteration()
        #expect(deliveries == 1)
        loop.runUntilIdle()
        #expect(deliveries == 1)
        event.trigger(if: false)
        loop.runUntilIdle()
        #expect(deliveries == 1, "trigger(if: false) does nothing")
        _ = token
    }

    @Test func manyTriggersFromOtherThreadsWakeTheLoopOnceAndDeliverOnceOnTheMainActor() async {
        let loop = TestLoop()
        let event = LazySimpleEvent(loop: loop)
        var deliveries = 0
        var token: SimpleEventToken?
        event.addObserver(&token) { _ in
            MainActor.preconditionIsolated()
            deliveries += 1
        }
        let postsBefore = loop.postsRun
        let requestsBefore = loop.settleRequestsFromOtherThreads
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { @Sendable in
                    for _ in 0..<10_000 { event.trigger() }
                }
            }
        }
        await loop.runUntilIdle()
        #expect(deliveries == 1)
        #expect(loop.settleRequestsFromOtherThreads - requestsBefore == 1, "40,000 triggers, one wake-up")
        #expect(loop.postsRun == postsBefore, "no posted job: the request reaches settle directly")
        _ = token
    }

    @Test func aTriggerDuringDeliverySchedulesExactlyOneMoreWithoutADiagnostic() {
        let loop = TestLoop()
        let event = LazySimpleEvent(loop: loop)
        var deliveries = 0
        var token: SimpleEventToken?
        event.addObserver(&token) { event in
            deliveries += 1
            if deliveries == 1 {
                (event as! LazySimpleEvent).trigger()
                (event as! LazySimpleEvent).trigger()
            }
        }
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record {
            loop.post { event.trigger() }
            loop.runUntilIdle()
        }
        #expect(deliveries == 2)
        #expect(diagnostics.kinds.isEmpty)
        _ = token
    }

    @Test func anEventFreedWhileADeliveryIsPendingDeliversNothingAndLeaksNothing() {
        let loop = TestLoop()
        var event: LazySimpleEvent? = LazySimpleEvent(loop: loop)
        weak let weakEvent = event
        var deliveries = 0
        var token: SimpleEventToken?
        event!.addObserver(&token) { _ in deliveries += 1 }
        loop.post { [event] in event?.trigger() }
        loop.runIteration()  // the trigger is now pending for settle... and delivered in the same iteration
        #expect(deliveries == 1)
        event!.trigger()  // pending again: a post waits in the loop
        event = nil
        #expect(weakEvent == nil, "a pending delivery does not keep the event alive")
        loop.runUntilIdle()
        #expect(deliveries == 1)
        token = nil
    }

    @Test func aSelfRetriggeringEventCannotStarveATimer() {
        let loop = TestLoop(budgets: LoopBudgets(settleRoundsPerIteration: 4))
        let event = LazySimpleEvent(loop: loop)
        var deliveries = 0
        var timerFiredAfter: Int?
        var token: SimpleEventToken?
        event.addObserver(&token) { event in
            deliveries += 1
            if deliveries == 1 {
                // Due at once: it runs in the next iteration's timer phase, if settle lets that iteration come.
                loop.schedule(after: .zero) { timerFiredAfter = deliveries }
            }
            (event as! LazySimpleEvent).trigger()
        }
        loop.post { event.trigger() }
        for _ in 0..<3 { loop.runIteration() }
        #expect(timerFiredAfter == 4, "the timer ran in the second iteration, after the first one's budget of rounds")
        #expect(deliveries == 12, "four rounds per iteration, one delivery per round")
        token = nil
        loop.runUntilIdle()
    }

    @Test func aProxyIsHigherThanItsSourcesAndEventsDefaultToHeightZero() {
        let loop = TestLoop()
        let source = LazySimpleEvent(loop: loop)
        let sync = SimpleEvent()
        let tall = LazySimpleEvent(loop: loop, height: 3)
        #expect(source.settleHeight == 0)
        #expect(sync.settleHeight == 0)
        #expect(SimpleEventProxy(loop: loop, events: source, sync).settleHeight == 1)
        #expect(SimpleEventProxy(loop: loop, events: source, tall).settleHeight == 4)
        #expect(SimpleEventProxy(loop: loop, events: []).settleHeight == 0)
    }

    @Test func aStoppedLoopDeliversNothing() {
        let loop = TestLoop()
        let event = LazySimpleEvent(loop: loop)
        var deliveries = 0
        var token: SimpleEventToken?
        event.addObserver(&token) { _ in deliveries += 1 }
        loop.stop()
        loop.runUntilIdle()
        event.trigger()
        loop.runUntilIdle()
        #expect(deliveries == 0)
        _ = token
    }
}
