import MainlineEvents
import MainlineLoop
import MainlineTesting
import Testing

/// `SimpleEventGroupObserver`: coalescing and the three debounce policies on loop timers, with the spec's exact
/// timelines in virtual time (spec/events.md).
@MainActor
@Suite("SimpleEventGroupObserver")
struct SimpleEventGroupObserverTests {
    /// Three sources as upstream's tests use them: two synchronous, one lazy.
    @MainActor struct Sources {
        let first = SimpleEvent()
        let second = SimpleEvent()
        let third: LazySimpleEvent

        init(_ loop: TestLoop) { third = LazySimpleEvent(loop: loop) }

        var all: [SimpleEventObservable] { [first, second, third] }

        /// Triggers source `index % 3` from a timer at `ms`.
        func trigger(at ms: Int64, _ index: Int, on loop: TestLoop) {
            loop.schedule(after: .milliseconds(ms - milliseconds(loop))) {
                switch index % 3 {
                case 0: first.trigger()
                case 1: second.trigger()
                default: third.trigger()
                }
            }
        }
    }

    /// Builds a group over `sources`, recording the virtual time of each call in `calls`.
    func group(
        _ loop: TestLoop,
        _ sources: Sources,
        _ timeout: Duration,
        _ policy: SimpleEventGroupObserver.DebouncePolicy,
        calls: Log
    ) -> SimpleEventGroupObserver {
        SimpleEventGroupObserver(loop: loop, events: sources.all, debounceTimeout: timeout, debouncePolicy: policy) {
            events in
            #expect(events.count == 3)
            calls.add("\(milliseconds(loop))")
        }
    }

    @Test func syncAndLazySourcesFiredInOneIterationCallTheBlockOnce() {
        let loop = TestLoop()
        let sources = Sources(loop)
        let calls = Log()
        let observer = group(loop, sources, .zero, .default, calls: calls)
        loop.post {
            sources.first.trigger()
            sources.second.trigger()
            sources.third.trigger()
        }
        loop.runUntilIdle()
        #expect(calls.entries == ["0"])
        // And from outside the loop's phases, as upstream's test does it:
        sources.first.trigger()
        sources.second.trigger()
        sources.third.trigger()
        loop.runUntilIdle()
        #expect(calls.entries == ["0", "0"])
        _ = observer
    }

    @Test func aGroupIsDeliveredAfterAProxyOverTheSameSources() {
        let loop = TestLoop()
        let sources = Sources(loop)
        let proxy = SimpleEventProxy(loop: loop, events: sources.all)
        let log = Log()
        let observer = SimpleEventGroupObserver(loop: loop, events: proxy, sources.third) { _ in log.add("group") }
        var token: SimpleEventToken?
        proxy.addObserver(&token) { _ in log.add("proxy") }
        loop.post {
            sources.third.trigger()
            sources.first.trigger()
        }
        loop.runUntilIdle()
        #expect(log.entries == ["proxy", "group"])
        _ = (observer, token)
    }

    @Test func trailingDebounceCallsOnceTimeoutAfterTheLastTrigger() {
        // Triggers at 0, 50, 100 ms with T = 100 ms → one call at 200 ms.
        let loop = TestLoop()
        let sources = Sources(loop)
        let calls = Log()
        let observer = group(loop, sources, .milliseconds(100), .default, calls: calls)
        for (index, ms) in [0, 50, 100].enumerated() { sources.trigger(at: Int64(ms), index, on: loop) }
        loop.advance(by: .milliseconds(199))
        #expect(calls.entries.isEmpty)
        loop.advance(by: .milliseconds(1))
        #expect(calls.entries == ["200"])
        loop.advance(by: .seconds(1))
        #expect(calls.entries == ["200"])
        _ = observer
    }

    @Test func leadingDebounceCallsAtOnceThenSuppressesUntilQuiet() {
        // Triggers at 0, 50, 100 ms with T = 100 ms → one call at 0; a trigger at 355 ms → another at 355.
        let loop = TestLoop()
        let sources = Sources(loop)
        let calls = Log()
        let observer = group(loop, sources, .milliseconds(100), .debounceLeading, calls: calls)
        for (index, ms) in [0, 50, 100].enumerated() { sources.trigger(at: Int64(ms), index, on: loop) }
        loop.advance(by: .milliseconds(300))
        #expect(calls.entries == ["0"])
        sources.trigger(at: 355, 0, on: loop)
        loop.advance(to: .zero + .seconds(1))
        #expect(calls.entries == ["0", "355"])
        _ = observer
    }

    @Test func leadingDebounceSuppressesATriggerWithinTheTimeoutOfTheLastOne() {
        // 0 calls and starts the timer. 100 and 150 each come within T of the trigger before them: suppressed, and
        // each restarts the timer, which ends at 250. 251 finds no timer running: it calls.
        let loop = TestLoop()
        let sources = Sources(loop)
        let calls = Log()
        let observer = group(loop, sources, .milliseconds(100), .debounceLeading, calls: calls)
        for (index, ms) in [0, 100, 150, 251].enumerated() { sources.trigger(at: Int64(ms), index, on: loop) }
        loop.advance(by: .seconds(1))
        #expect(calls.entries == ["0", "251"])
        _ = observer
    }

    @Test func throttleCallsAtMostOncePerTimeoutAtTheEndOfEachWindow() {
        // Triggers at 0, 50, 200 ms with T = 100 ms → calls at 100 and 300 ms.
        let loop = TestLoop()
        let sources = Sources(loop)
        let calls = Log()
        let observer = group(loop, sources, .milliseconds(100), .throttle, calls: calls)
        for (index, ms) in [0, 50, 200].enumerated() { sources.trigger(at: Int64(ms), index, on: loop) }
        loop.advance(by: .seconds(1))
        #expect(calls.entries == ["100", "300"])
        _ = observer
    }

    @Test func theSecondsOverloadTakesATimeInterval() {
        let loop = TestLoop()
        let sources = Sources(loop)
        let calls = Log()
        let observer = SimpleEventGroupObserver(loop: loop, events: sources.first, debounceTimeout: 0.25) { _ in
            calls.add("\(milliseconds(loop))")
        }
        sources.first.trigger()
        loop.advance(by: .seconds(1))
        #expect(calls.entries == ["250"])
        _ = observer
    }

    @Test func removeUnsubscribesStopsTheTimerAndEmptiesTheEvents() {
        let loop = TestLoop()
        let sources = Sources(loop)
        let calls = Log()
        let observer = group(loop, sources, .milliseconds(100), .default, calls: calls)
        sources.first.trigger()
        #expect(loop.scheduledTimerCount == 1)
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record {
            observer.remove()
            observer.remove()
        }
        #expect(diagnostics.kinds.isEmpty, "idempotent: each source is left exactly once")
        #expect(observer.events.isEmpty)
        #expect(loop.scheduledTimerCount == 0)
        sources.first.trigger()
        loop.advance(by: .seconds(1))
        #expect(calls.entries.isEmpty)
    }

    @Test func aCallPendingAtRemoveStillRunsWithNoEvents() {
        let loop = TestLoop()
        let sources = Sources(loop)
        var received: [[SimpleEventObservable]] = []
        let observer = SimpleEventGroupObserver(loop: loop, events: sources.all) { received.append($0) }
        sources.first.trigger()
        observer.remove()
        loop.runUntilIdle()
        #expect(received.count == 1)
        #expect(received.first?.isEmpty == true)
    }

    @Test func deallocatingTheObserverLeavesItsSourcesCleanly() {
        let loop = TestLoop()
        let sources = Sources(loop)
        var calls = 0
        var observer: SimpleEventGroupObserver? = SimpleEventGroupObserver(loop: loop, events: sources.all) { _ in
            calls += 1
        }
        sources.first.trigger()
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record {
            observer = nil
            sources.first.trigger()
            loop.runUntilIdle()
        }
        #expect(diagnostics.kinds.isEmpty)
        #expect(calls == 0)
        _ = observer
    }

    @Test func aGroupIsNoSimpleEventObserverSoItsRelayIsNotPublic() {
        let loop = TestLoop()
        let source = SimpleEvent()
        var calls = 0
        let group = SimpleEventGroupObserver(loop: loop, events: source) { _ in calls += 1 }
        #expect(!((group as AnyObject) is any SimpleEventObserver))
        source.trigger()
        loop.runIteration()
        #expect(calls == 1, "the events still reach the group, through its relay")
        group.remove()
        source.trigger()
        loop.runIteration()
        #expect(calls == 1, "removing the group removes its relay from the events")
    }
}
