import MainlineLoop
import MainlineTesting
import Testing

@testable import MainlineEvents

/// `notifications` on every `SimpleEventObservable`: one element per delivery as an observer sees it, at most one
/// pending, finishing when the event is freed or the task is cancelled.
@MainActor
@Suite("SimpleEventObservable.notifications")
struct SimpleEventNotificationsTests {
    @Test func aBurstOfTriggersInOneIterationIsOneElementJustAsItIsOneObserverCall() async {
        let loop = TestLoop()
        var event: LazySimpleEvent? = LazySimpleEvent(loop: loop)
        var deliveries = 0
        var token: SimpleEventToken?
        event!.addObserver(&token) { _ in deliveries += 1 }
        let consumer = Consumer(event!.notifications)
        #expect(await loop.run(until: { consumer.started }))
        weak let target = event
        for burst in 1...3 {
            loop.post { for _ in 0..<5 { target?.trigger() } }
            #expect(await loop.run(until: { consumer.count == burst }))
            #expect(deliveries == burst, "the observer saw one delivery per burst too")
        }
        // Freeing the event finishes the sequence after any pending element: had a burst been more than one element,
        // the count would show it now.
        event = nil
        #expect(await loop.run(until: { consumer.finished }, attempts: 1_000))
        #expect(consumer.count == 3)
        #expect(deliveries == 3)
        _ = token
    }

    @Test func notificationsWhileTheConsumerIsBusyAreKeptAsOnePendingElement() async {
        let event = SimpleEvent()
        let consumer = Consumer(event.notifications)
        // The consumer has not run yet: three synchronous deliveries find nobody waiting.
        event.trigger()
        event.trigger()
        event.trigger()
        #expect(await run(until: { consumer.count == 1 }))
        // Nothing more comes out of those three: the next element is the next notification.
        for _ in 0..<10 { await Task.yield() }
        #expect(consumer.count == 1)
        event.trigger()
        #expect(await run(until: { consumer.count == 2 }))
        consumer.task?.cancel()
        #expect(await run(until: { consumer.finished }))
        #expect(consumer.count == 2)
    }

    @Test(arguments: FreedEvent.allCases)
    func finishesWhenTheEventIsFreed(_ kind: FreedEvent) async {
        let loop = TestLoop()
        var event: SimpleEventObservable? = kind.make(loop)
        weak let weakEvent = event
        let consumer = Consumer(event!.notifications)
        #expect(await loop.run(until: { consumer.started }))
        #expect(!consumer.finished)
        event = nil
        #expect(weakEvent == nil, "the sequence does not keep the event alive")
        #expect(await loop.run(until: { consumer.finished }, attempts: 1_000))
        #expect(consumer.count == 0)
    }

    @Test func aNotificationPendingWhenTheEventIsFreedIsStillDelivered() async {
        var event: SimpleEvent? = SimpleEvent()
        let consumer = Consumer(event!.notifications)
        event!.trigger()
        event = nil
        #expect(await run(until: { consumer.finished }))
        #expect(consumer.count == 1, "nothing lost: the pending element comes first, then the end")
    }

    @Test func cancellingTheConsumerEndsTheIterationAndRemovesItsObserver() async {
        let loop = TestLoop()
        let event = LazySimpleEvent(loop: loop)
        let sequence = event.notifications
        let consumer = Consumer(sequence)
        #expect(await loop.run(until: { consumer.started }))
        #expect(sequence.wakeups.isObserving)
        consumer.task?.cancel()
        #expect(await loop.run(until: { consumer.finished }, attempts: 1_000))
        #expect(!sequence.wakeups.isObserving, "the observer is gone with the iteration")
        event.trigger()
        await loop.runUntilIdle()
        #expect(consumer.count == 0)
    }

    @Test func aTaskCancelledBeforeItAsksGetsNilAtOnceEvenWithAPendingElement() async {
        let event = SimpleEvent()
        let sequence = event.notifications
        event.trigger()
        let task = Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }
            var iterator = sequence.makeAsyncIterator()
            return await iterator.next() == nil
        }
        #expect(await task.value)
        #expect(!sequence.wakeups.isObserving)
    }

    @Test func eachReadIsASubscriptionOfItsOwnThatSeesEveryNotification() async {
        let loop = TestLoop()
        let event = LazySimpleEvent(loop: loop)
        let first = Consumer(event.notifications)
        let second = Consumer(event.notifications)
        #expect(await loop.run(until: { first.started && second.started }))
        event.trigger()
        #expect(await loop.run(until: { first.count == 1 && second.count == 1 }))
        first.task?.cancel()
        #expect(await loop.run(until: { first.finished }))
        event.trigger()
        #expect(await loop.run(until: { second.count == 2 }))
        #expect(!second.finished, "cancelling one subscription leaves the other")
        second.task?.cancel()
        #expect(await loop.run(until: { second.finished }))
    }

    @Test func aTypeThatForwardsToAnEventFinishesWhenThatEventIsFreed() async {
        let loop = TestLoop()
        var inbox: Inbox? = Inbox(loop: loop)
        let consumer = Consumer(inbox!.didChange.notifications)
        #expect(await loop.run(until: { consumer.started }))
        inbox!.receive()
        #expect(await loop.run(until: { consumer.count == 1 }))
        inbox = nil
        #expect(await loop.run(until: { consumer.finished }, attempts: 1_000))
    }
}

/// The events that own an observer list, each freed by the test.
enum FreedEvent: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case simpleEvent, lazySimpleEvent, proxy

    var testDescription: String { rawValue }

    @MainActor
    func make(_ loop: TestLoop) -> SimpleEventObservable {
        switch self {
        case .simpleEvent: SimpleEvent()
        case .lazySimpleEvent: LazySimpleEvent(loop: loop)
        case .proxy: SimpleEventProxy(loop: loop, events: Self.source)
        }
    }

    /// A source that outlives the proxy, so only the proxy is freed.
    @MainActor private static let source = SimpleEvent()
}

/// A model that exposes its own `SimpleEventObservable` by forwarding to a private event.
@MainActor
private final class Inbox: SimpleEventObservable {
    private let changed: LazySimpleEvent
    var didChange: SimpleEventObservable { self }

    init(loop: TestLoop) { changed = LazySimpleEvent(loop: loop) }

    func receive() { changed.trigger() }

    func addObserver(_ token: inout SimpleEventToken?, _ block: @escaping ObserverBlock) {
        changed.addObserver(&token, block)
    }

    func addObserver(_ observer: SimpleEventObserver) { changed.addObserver(observer) }

    func removeObserver(_ observer: SimpleEventObserver) { changed.removeObserver(observer) }
}

/// Yields to other main-actor tasks until `condition` holds (for tests without a loop: a `SimpleEvent` needs none).
@MainActor
private func run(until condition: () -> Bool, attempts: Int = 1_000) async -> Bool {
    for _ in 0..<attempts {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}
