import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// The timer heap both loops share, driven directly with integer timers.
@Suite("_DeadlineHeap")
struct DeadlineHeapTests {
    /// Timers are integers; a test kills one by adding it to `dead`, and the heap's discards are recorded.
    struct Harness {
        var heap = _DeadlineHeap<Int>()
        var dead: Set<Int> = []
        var discarded: [Int] = []

        mutating func popAll(now: Int64) -> [Int] {
            var popped: [Int] = []
            let mark = heap.sequenceMark
            while true {
                let dead = self.dead
                var discarded: [Int] = []
                let next = heap.popDue(now: now, insertedBefore: mark, isLive: { !dead.contains($0) }) {
                    discarded.append($0)
                }
                self.discarded += discarded
                guard let next else { return popped }
                popped.append(next)
            }
        }
    }

    @Test func popsInDeadlineOrderWithTiesInInsertionOrder() {
        var harness = Harness()
        for (timer, deadline) in [(1, 30), (2, 10), (3, 20), (4, 10), (5, 10)] {
            harness.heap.insert(timer, deadline: Int64(deadline))
        }
        #expect(harness.popAll(now: 25) == [2, 4, 5, 3])
        #expect(harness.popAll(now: 30) == [1])
        #expect(harness.heap.count == 0)
    }

    @Test func insertSaysWhetherTheTimerBecameTheEarliest() {
        var heap = _DeadlineHeap<Int>()
        #expect(heap.insert(1, deadline: 50).isEarliest)
        #expect(!heap.insert(2, deadline: 60).isEarliest)
        #expect(!heap.insert(3, deadline: 50).isEarliest, "a tie goes after the timer already there")
        #expect(heap.insert(4, deadline: 40).isEarliest)
        #expect(heap.insert(5, deadline: 0).sequence == 4)
    }

    @Test func timersInsertedAfterTheMarkWaitEvenWhenDue() {
        var heap = _DeadlineHeap<Int>()
        heap.insert(1, deadline: 0)
        let mark = heap.sequenceMark
        heap.insert(2, deadline: 0)
        #expect(heap.popDue(now: 0, insertedBefore: mark, isLive: { _ in true }, discard: { _ in }) == 1)
        #expect(heap.popDue(now: 0, insertedBefore: mark, isLive: { _ in true }, discard: { _ in }) == nil)
        #expect(heap.count == 1)
    }

    @Test func deadTimersAtTheTopAreSkippedAndDiscardedExactlyOnce() {
        var harness = Harness()
        for timer in 1...4 { harness.heap.insert(timer, deadline: Int64(timer)) }
        harness.dead = [1, 2]
        harness.heap.didCancel(isLive: { _ in true }, discard: { _ in })
        harness.heap.didCancel(isLive: { _ in true }, discard: { _ in })
        #expect(harness.heap.count == 2)
        #expect(harness.popAll(now: 10) == [3, 4])
        #expect(harness.discarded == [1, 2])
        #expect(harness.heap.count == 0)
    }

    @Test func aMostlyDeadHeapIsCompactedAndOnlyTheDeadAreDiscarded() {
        var heap = _DeadlineHeap<Int>()
        for timer in 0..<200 { heap.insert(timer, deadline: Int64(timer)) }
        // As the loops do: each timer dies first, then the heap is told, once per death.
        var dead: Set<Int> = []
        var discarded: [Int] = []
        for timer in 0..<150 {
            dead.insert(timer)
            let current = dead
            heap.didCancel(isLive: { !current.contains($0) }, discard: { discarded.append($0) })
        }
        #expect(!discarded.isEmpty, "more than half dead: the heap was compacted")
        #expect(Set(discarded).isSubset(of: dead))
        #expect(discarded.count == Set(discarded).count, "no timer discarded twice")
        #expect(heap.count == 50)
        var popped: [Int] = []
        let allDead = dead
        while let timer = heap.popDue(
            now: .max,
            insertedBefore: heap.sequenceMark,
            isLive: { !allDead.contains($0) },
            discard: { discarded.append($0) }
        ) {
            popped.append(timer)
        }
        #expect(popped == Array(150..<200))
        #expect(Set(discarded) == dead)
        #expect(discarded.count == dead.count)
    }

    @Test func fixedRateDeadlinesKeepTheRateAndSkipWhatWasMissed() {
        #expect(_nextFixedRateDeadline(after: 100, interval: 100, now: 100) == (200, 0))
        #expect(_nextFixedRateDeadline(after: 100, interval: 100, now: 199) == (200, 0))
        #expect(_nextFixedRateDeadline(after: 100, interval: 100, now: 200) == (300, 1))
        #expect(_nextFixedRateDeadline(after: 200, interval: 100, now: 450) == (500, 2))
    }

    @Test func fixedRateDeadlinesSaturateInsteadOfWrappingToThePast() {
        #expect(_nextFixedRateDeadline(after: 10, interval: .max, now: 20) == (.max, 0))
        #expect(_nextFixedRateDeadline(after: .max - 5, interval: 10, now: .max - 1) == (.max, 0))
        #expect(_nextFixedRateDeadline(after: .min, interval: 10, now: .max).next == .max)
    }
}
