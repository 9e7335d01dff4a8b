import Foundation
import MainlineLoop
import MainlineObservables
import MainlineTesting
import Testing

@Suite("Disposable and DisposeBag")
struct DisposableTests {
    @Test func aDisposableRunsItsHandlerAtMostOnceFromAnyThread() async {
        let runs = _Locked(0)
        let disposable = Disposable { runs.withLock { $0 += 1 } }
        #expect(!disposable.isDisposed)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { disposable.dispose() } }
        }
        #expect(runs.withLock { $0 } == 1)
        #expect(disposable.isDisposed)
    }

    @Test func aBagDisposesEverythingInOrderIncludingNestedBagsAndIsReusable() {
        let log = _Locked<[String]>([])
        let bag = DisposeBag()
        let nested = DisposeBag()
        Disposable { log.withLock { $0.append("a") } }.addTo(bag)
        Disposable { log.withLock { $0.append("nested") } }.addTo(nested)
        bag.add(nested)
        bag.add(bag)
        Disposable { log.withLock { $0.append("b") } }.addTo(bag)
        #expect(bag.count == 3, "adding a bag to itself does nothing")
        bag.dispose()
        #expect(log.withLock { $0 } == ["a", "nested", "b"])
        #expect(bag.count == 0)
        #expect(nested.count == 0)
        Disposable { log.withLock { $0.append("c") } }.addTo(bag)
        bag.dispose()
        #expect(log.withLock { $0 } == ["a", "nested", "b", "c"], "reusable")
    }

    @Test func aBagDisposesWhatItHoldsWhenReleased() {
        let disposed = _Locked(false)
        var bag: DisposeBag? = DisposeBag()
        bag?.add(Disposable { disposed.withLock { $0 = true } })
        bag = nil
        #expect(disposed.withLock { $0 })
    }

    @MainActor @Test func disposingAnObservationFromAnotherThreadStopsItAtOnce() async {
        let loop = TestLoop()
        let subject = subjectOf(0, loop: loop)
        var calls = 0
        let observation = subject.observe { _ in calls += 1 }
        await Task.detached { observation.dispose() }.value
        subject.value = 1
        #expect(calls == 1, "skipped even before the loop removed it")
        await loop.runUntilIdle()
        #expect(subject.observerCount == 0)
    }
}
