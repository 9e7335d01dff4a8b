import MainlineLoop
import MainlineTesting
import Testing

@testable import MainlineEvents
@testable import MainlineObservables

/// `ObservedValues`: the observables' `values` (and `DataCache.values(skipInitial:)`), on the one observer bridge.
@MainActor
@Suite("Observed values")
struct ObservedValuesTests {
    @Test func anEndedSequenceHandsOutItsNewestPendingValueThenFinishes() async {
        let loop = TestLoop()
        let subject = InitializedSubject(0, loop: loop)
        let owner = _WakeupsOwner()
        let values = ObservedValues(skipInitial: true, owner: owner) { subject.observe($0) }
        subject.update(1)
        subject.update(2)
        owner.endAll()
        var seen: [Int] = []
        for await value in values { seen.append(value) }
        #expect(seen == [2], "the current value skipped; 1 conflated away; finished after the pending 2")
    }

    @Test func releasingTheSequenceRemovesItsObserver() {
        let loop = TestLoop()
        let subject = InitializedSubject(0, loop: loop)
        var values: ObservedValues<Int>? = subject.values
        #expect(subject.observerCount == 1)
        values = nil
        loop.runUntilIdle()
        #expect(subject.observerCount == 0)
        _ = values
    }

    @Test func cancellingTheConsumerFinishesItAndRemovesItsObserver() async {
        let loop = TestLoop()
        let subject = InitializedSubject(0, loop: loop)
        let values = subject.values
        let consumer = Task { @MainActor in
            var seen: [Int] = []
            for await value in values { seen.append(value) }
            return seen
        }
        while values.wakeups.waiterCount == 0 { await Task.yield() }
        consumer.cancel()
        #expect(await consumer.value == [0], "the current value, then the end")
        await loop.runUntilIdle()
        #expect(subject.observerCount == 0)
        #expect(!values.wakeups.isObserving)
    }

    @Test func nothingAsAValueIsAnElementNotTheEnd() async {
        let loop = TestLoop()
        let subject = UninitializedSubject<Int>(loop: loop)
        var iterator = subject.values.makeAsyncIterator()
        #expect(await iterator.next() == .some(nil), "nothing yet: the element nil")
        subject.update(1)
        #expect(await iterator.next() == 1)
    }

    @Test func eachReadIsAnObserverOfItsOwn() async {
        let loop = TestLoop()
        let subject = InitializedSubject(0, loop: loop)
        var first = subject.values.makeAsyncIterator()
        var second = subject.values.makeAsyncIterator()
        #expect(subject.observerCount == 2)
        subject.update(1)
        #expect(await first.next() == 1)
        #expect(await second.next() == 1, "each saw the change")
    }

    @Test func twoIteratorsOfOneSequenceShareItsValues() async {
        let loop = TestLoop()
        let subject = InitializedSubject(0, loop: loop)
        let values = subject.values
        var first = values.makeAsyncIterator()
        var second = values.makeAsyncIterator()
        #expect(await first.next() == 0)
        subject.update(1)
        #expect(await second.next() == 1, "the one observer's values go to whichever iterator asks")
        #expect(subject.observerCount == 1)
    }
}
