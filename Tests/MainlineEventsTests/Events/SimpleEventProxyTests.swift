import MainlineEvents
import MainlineLoop
import MainlineTesting
import Testing

/// `SimpleEventProxy` and glitch-free settle by dependency height (spec/events.md, DESIGN.md §3).
@MainActor
@Suite("SimpleEventProxy")
struct SimpleEventProxyTests {
    @Test func anySourceOrADirectTriggerCoalescesIntoOneProxyNotification() {
        let loop = TestLoop()
        let sync = SimpleEvent()
        let lazy = LazySimpleEvent(loop: loop)
        let proxy = SimpleEventProxy(loop: loop, events: [sync, lazy])
        var received: [SimpleEventObservable] = []
        var token: SimpleEventToken?
        proxy.addObserver(&token) { received.append($0) }
        loop.post {
            sync.trigger()
            lazy.trigger()
            proxy.trigger()
        }
        loop.runUntilIdle()
        #expect(received.count == 1)
        #expect(received.first === proxy)
        loop.post { lazy.trigger() }
        loop.runUntilIdle()
        #expect(received.count == 2)
        _ = token
    }

    @Test func theVariadicFormObservesEverySource() {
        let loop = TestLoop()
        let a = SimpleEvent()
        let b = SimpleEvent()
        let proxy = SimpleEventProxy(loop: loop, events: a, b)
        var deliveries = 0
        var token: SimpleEventToken?
        proxy.addObserver(&token) { _ in deliveries += 1 }
        a.trigger()
        loop.runUntilIdle()
        b.trigger()
        loop.runUntilIdle()
        #expect(deliveries == 2)
        _ = token
    }

    @Test func deallocatingTheProxyUnsubscribesItFromItsSources() {
        let loop = TestLoop()
        let source = SimpleEvent()
        var proxy: SimpleEventProxy? = SimpleEventProxy(loop: loop, events: source)
        weak let weakProxy = proxy
        proxy = nil
        #expect(weakProxy == nil, "sources do not keep the proxy alive")
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record {
            source.trigger()
            loop.runUntilIdle()
        }
        #expect(diagnostics.kinds.isEmpty, "its token observers left the source cleanly")
    }

    @Test func aDiamondDeliversEachEventOncePerIterationInHeightOrder() {
        // source ─┬─ left ──┬─ top
        //         └─ right ─┘
        let loop = TestLoop()
        let source = LazySimpleEvent(loop: loop)
        let left = SimpleEventProxy(loop: loop, events: source)
        let right = SimpleEventProxy(loop: loop, events: source)
        let top = SimpleEventProxy(loop: loop, events: left, right)
        #expect(top.settleHeight == 2)
        let log = Log()
        var tokens: [SimpleEventToken?] = []
        for (name, event) in [("top", top), ("right", right), ("left", left), ("source", source)]
            as [(String, LazySimpleEvent)]
        {
            tokens.append(event.addObserver { _ in log.add(name) })
        }
        loop.post { source.trigger() }
        loop.runIteration()
        #expect(log.entries == ["source", "left", "right", "top"])
        log.clear()
        loop.post {
            top.trigger()
            right.trigger()
            source.trigger()
        }
        loop.runIteration()
        #expect(log.entries == ["source", "right", "left", "top"], "same height: request order")
        loop.runUntilIdle()
        #expect(log.entries.count == 4)
        _ = tokens
    }
}
