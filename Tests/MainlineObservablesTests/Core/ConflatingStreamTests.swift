import MainlineLoop
import MainlineObservables
import MainlineTesting
import Testing

/// `_conflatingStream`: the one bridge from a value observer to an `AsyncStream`, under the observables' `values` and
/// `DataCache.values(skipInitial:)`.
@MainActor
@Suite("The conflating stream bridge")
struct ConflatingStreamTests {
    @Test func aFinishedStreamHandsOutItsNewestPendingValueThenEnds() async {
        let loop = TestLoop()
        let subject = InitializedSubject(0, loop: loop)
        let finishers = _StreamFinishers<Int>()
        let stream = _conflatingStream(of: Int.self, skipInitial: true, finishers: finishers) { subject.observe($0) }
        subject.update(1)
        subject.update(2)
        finishers.finishAll()
        var seen: [Int] = []
        for await value in stream { seen.append(value) }
        #expect(seen == [2], "the current value skipped; 1 conflated away; finished after the pending 2")
    }

    @Test func terminatingTheStreamDisposesItsObserver() {
        let loop = TestLoop()
        let subject = InitializedSubject(0, loop: loop)
        var stream: AsyncStream<Int>? = _conflatingStream(of: Int.self) { subject.observe($0) }
        #expect(subject.observerCount == 1)
        stream = nil
        loop.runUntilIdle()
        #expect(subject.observerCount == 0)
        _ = stream
    }
}
