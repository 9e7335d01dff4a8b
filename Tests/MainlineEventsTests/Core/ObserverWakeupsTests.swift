import MainlineLoop
import Testing

@testable import MainlineEvents

/// `_ObserverWakeups` with a value: the one bridge from an observer to an `AsyncSequence`, as the observables' and
/// `DataCache`'s `values` use it (the events' and mailboxes' `Void` wake-ups are tested through their sequences).
@MainActor
@Suite("Observer wake-ups carrying values")
struct ObserverWakeupsTests {
    /// A value source that calls a new observer at once with its current value, as an observable does.
    @MainActor
    final class Source<Value> {
        var current: Value
        private var observers: [Int: @MainActor (Value) -> Void] = [:]
        private var nextKey = 0
        /// The keys of the observers removed: removal comes from any thread.
        private let removed = _Locked(Set<Int>())

        init(_ current: Value) { self.current = current }

        var observerCount: Int { removed.withLock { removed in observers.keys.count { !removed.contains($0) } } }

        func send(_ value: Value) {
            current = value
            let live = removed.withLock { removed in observers.filter { !removed.contains($0.key) } }
            for observer in live.values { observer(value) }
        }

        /// Registers `onNext`, calling it at once; returns what removes it, callable from any thread.
        func observe(_ onNext: @escaping @MainActor (Value) -> Void) -> @Sendable () -> Void {
            let key = nextKey
            nextKey += 1
            observers[key] = onNext
            onNext(current)
            return { [removed] in removed.withLock { _ = $0.insert(key) } }
        }
    }

    @Test func theCurrentValueComesFirstThenEachChange() async {
        let source = Source(0)
        let wakeups = _ObserverWakeups<Int> { source.observe($0) }
        #expect(await wakeups.next() == 0)
        source.send(1)
        #expect(await wakeups.next() == 1)
    }

    @Test func callsWhileNoTaskWaitsConflateToTheNewest() async {
        let source = Source(0)
        let wakeups = _ObserverWakeups<Int> { source.observe($0) }
        for value in 1...5 { source.send(value) }
        #expect(await wakeups.next() == 5, "the current value and 1…4 replaced by the newest")
        source.send(6)
        #expect(await wakeups.next() == 6)
    }

    @Test func skipInitialLeavesOutOnlyTheValueDeliveredWhileObserving() async {
        let source = Source(0)
        let owner = _WakeupsOwner()
        let wakeups = _ObserverWakeups<Int>(skipInitial: true, owner: owner) { source.observe($0) }
        source.send(0)
        #expect(await wakeups.next() == 0, "a later call with the same value is a change, not the skipped one")
        owner.endAll()
        #expect(await wakeups.next() == nil)

        let untouched = _ObserverWakeups<Int>(skipInitial: true, owner: owner) { source.observe($0) }
        #expect(await untouched.next() == nil, "nothing after the skipped current value; the owner had ended")
    }

    @Test func aWaitingTaskIsResumedWithTheValue() async {
        let source = Source(0)
        let wakeups = _ObserverWakeups<Int>(skipInitial: true) { source.observe($0) }
        let consumer = Task { @MainActor in await wakeups.next() }
        while wakeups.waiterCount == 0 { await Task.yield() }
        source.send(7)
        #expect(await consumer.value == 7)
    }

    @Test func waitersAreResumedInOrder() async {
        let source = Source(0)
        let wakeups = _ObserverWakeups<Int>(skipInitial: true) { source.observe($0) }
        let first = Task { @MainActor in await wakeups.next() }
        while wakeups.waiterCount == 0 { await Task.yield() }
        let second = Task { @MainActor in await wakeups.next() }
        while wakeups.waiterCount == 1 { await Task.yield() }
        source.send(1)
        source.send(2)
        #expect(await first.value == 1)
        #expect(await second.value == 2)
    }

    @Test func anOwnerEndingHandsOutThePendingNewestValueThenEnds() async {
        let source = Source(0)
        let owner = _WakeupsOwner()
        let wakeups = _ObserverWakeups<Int>(owner: owner) { source.observe($0) }
        source.send(1)
        source.send(2)
        owner.endAll()
        #expect(source.observerCount == 0, "ending removes the observer")
        source.send(3)
        #expect(await wakeups.next() == 2, "the pending value is handed out first, the newest one")
        #expect(await wakeups.next() == nil)
        #expect(await wakeups.next() == nil, "ended stays ended")
    }

    @Test func anOwnerEndingResumesWaitingTasksWithTheEnd() async {
        let source = Source(0)
        let owner = _WakeupsOwner()
        let wakeups = _ObserverWakeups<Int>(skipInitial: true, owner: owner) { source.observe($0) }
        let consumer = Task { @MainActor in await wakeups.next() }
        while wakeups.waiterCount == 0 { await Task.yield() }
        owner.endAll()
        #expect(await consumer.value == nil)
        #expect(!wakeups.isObserving)
    }

    @Test func cancellingAWaitingTaskEndsTheWakeUpsAndRemovesTheObserver() async {
        let source = Source(0)
        let wakeups = _ObserverWakeups<Int>(skipInitial: true) { source.observe($0) }
        let consumer = Task { @MainActor in await wakeups.next() }
        while wakeups.waiterCount == 0 { await Task.yield() }
        consumer.cancel()
        #expect(await consumer.value == nil)
        #expect(!wakeups.isObserving)
        #expect(source.observerCount == 0)
        source.send(1)
        #expect(await wakeups.next() == nil, "a cancelled consumer ends the wake-ups for good")
    }

    @Test func aTaskCancelledBeforeItAsksGetsNilEvenWithAPendingValue() async {
        let source = Source(0)
        let wakeups = _ObserverWakeups<Int> { source.observe($0) }
        let consumer = Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }
            return await wakeups.next()
        }
        #expect(await consumer.value == nil)
        #expect(source.observerCount == 0)
    }

    @Test func freeingTheWakeUpsRemovesTheObserver() async {
        let source = Source(0)
        var wakeups: _ObserverWakeups<Int>? = _ObserverWakeups { source.observe($0) }
        #expect(source.observerCount == 1)
        wakeups = nil
        #expect(source.observerCount == 0)
        #expect(wakeups == nil)
    }

    @Test func anOptionalValueOfNilIsAValueNotTheEnd() async {
        let source = Source<Int?>(nil)
        let owner = _WakeupsOwner()
        let wakeups = _ObserverWakeups<Int?>(owner: owner) { source.observe($0) }
        #expect(await wakeups.next() == .some(nil))
        source.send(1)
        source.send(nil)
        owner.endAll()
        #expect(await wakeups.next() == .some(nil))
        #expect(await wakeups.next() == .none)
    }
}
