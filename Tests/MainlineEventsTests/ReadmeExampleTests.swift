import MainlineEvents
import MainlineLoop
import MainlineTesting
import Testing

/// A model with a lazy change event: the README's first events snippet.
@MainActor
final class Cart {
    private let changed: LazySimpleEvent
    var didChange: SimpleEventObservable { changed }
    private(set) var items: [String] = []

    init(loop: any Loop = MainLoop.main) {
        changed = LazySimpleEvent(loop: loop)
    }

    func add(_ item: String) {
        items.append(item)
        changed.trigger()
    }
}

/// The README's tour of events and mailboxes, as tests: the snippets there are copied from this file.
@MainActor
@Suite("README: events and mailboxes")
struct EventsReadmeExampleTests {
    @Test func changesCoalesceIntoOneNotification() {
        let loop = TestLoop()
        let cart = Cart(loop: loop)
        var renders = 0
        var token: SimpleEventToken?
        cart.didChange.addObserver(&token) { _ in renders += 1 }

        loop.post {
            cart.add("apples")
            cart.add("pears")
        }
        loop.runIteration()
        #expect(renders == 1)  // two changes, one notification, in the settle phase
        _ = token
    }

    @Test func aGroupObserverDebouncesOnLoopTimers() {
        let loop = TestLoop()
        let cart = Cart(loop: loop)
        var saves: [LoopInstant] = []
        let autosave = SimpleEventGroupObserver(
            loop: loop,
            events: cart.didChange,
            debounceTimeout: .milliseconds(500)
        ) { _ in saves.append(loop.now) }

        cart.add("apples")
        loop.advance(by: .milliseconds(300))
        cart.add("pears")
        loop.advance(by: .seconds(2))
        #expect(saves == [.zero + .milliseconds(800)])  // 500 ms after the last change
        _ = autosave
    }

    @Test func aMailboxKeepsTheLatestValueFromAnotherThread() async {
        let loop = TestLoop()
        let readings = LatestMailbox<Double>(loop: loop)
        var shown: [Double] = []
        var token: SimpleEventToken?
        readings.event.addObserver(&token) { _ in
            if let latest = readings.take() { shown.append(latest) }
        }

        // A sensor thread places readings faster than anyone could show them:
        await Task.detached { for celsius in [20.5, 20.6, 20.7] { readings.place(celsius) } }.value
        await loop.runUntilIdle()
        #expect(shown == [20.7])
        #expect(readings.counts.dropped == 2)  // never lost silently: counted
        _ = token
    }
}
