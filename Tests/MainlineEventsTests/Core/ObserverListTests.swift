import MainlineLoop
import MainlineTesting
import Testing

@testable import MainlineEvents

/// `_ObserverList`, the one list under every observable thing: what it costs to end observers, and its disposal
/// rule. The round rules are checked through its users (`ObserverHubTests`, `SimpleEventTests`, `SubjectTests`,
/// the data source tests).
@MainActor
@Suite("Observer list")
struct ObserverListTests {
    /// Adds `count` observers and returns their entries.
    private func filled(_ count: Int) -> (_ObserverList<Int>, [_ObserverList<Int>.Entry]) {
        let list = _ObserverList<Int>(nesting: .deferred)
        return (list, (0..<count).map { list.add($0) })
    }

    // A list that searched for each entry it removes (or compacted after every removal) visits about N²/2 slots:
    // 2,000,000 for these 2,000 observers. The bound is two visits per observer, whatever the order.
    @Test(arguments: ["first to last", "last to first", "every other, then the rest"])
    func endingNObserversVisitsLinearlyManySlots(order: String) {
        let count = 2_000
        let (list, entries) = filled(count)
        let ordered: [_ObserverList<Int>.Entry]
        switch order {
        case "first to last": ordered = entries
        case "last to first": ordered = entries.reversed()
        default:
            ordered =
                stride(from: 0, to: count, by: 2).map { entries[$0] }
                + stride(from: 1, to: count, by: 2).map { entries[$0] }
        }
        for entry in ordered { list.remove(entry) }
        #expect(list.isEmpty)
        #expect(list.slotVisits <= 2 * count, "visited \(list.slotVisits) slots to end \(count) observers")
    }

    @Test func anEntryEndedInsideTheLoopLeavesAtOnceAndItsObserverIsReleased() {
        @MainActor final class Captured {}
        @MainActor final class Flag { var value = false }
        let loop = TestLoop()
        let list = _ObserverList<_Block<Void>>(nesting: .deferred)
        var captured: Captured? = Captured()
        weak let weakCaptured = captured
        do {
            let entry = list.add(_Block { [captured] in _ = captured })
            captured = nil
            let released = Flag()
            _ = loop.post {
                list.end(entry, loop: loop)
                released.value = list.count == 0
            }
            loop.runIteration()
            #expect(released.value, "gone from the list inside the job that ended it")
        }
        #expect(weakCaptured == nil, "and the list no longer holds its observer")
    }

    @Test func anEntryEndedFromAnotherThreadIsSkippedAtOnceAndLeavesOnTheLoop() async {
        let loop = TestLoop()
        let list = _ObserverList<Int>(nesting: .deferred)
        let entry = list.add(1)
        await Task.detached { list.end(entry, loop: loop) }.value
        var called: [Int] = []
        list.forEach { called.append($0) }
        #expect(called.isEmpty, "skipped before the loop removed it")
        #expect(list.entries.count == 1, "still in its slot until the loop runs")
        await loop.runUntilIdle()
        #expect(list.entries.allSatisfy { $0 == nil }, "removed by the job posted to the loop")
    }
}
