import Foundation
import MainlineLoop
import MainlineObservables
import MainlineTesting
import Testing

/// Kaluga's observable behaviours, on the three kinds of subject (spec/observables-and-viewmodels.md).
@MainActor
@Suite("Observables and subjects")
struct SubjectTests {
    @Test func theInitialValueAgreesEverywhere() async {
        let loop = TestLoop()
        let subject = InitializedSubject("a", loop: loop)
        let seen = Seen<String>()
        let observation = subject.observe { seen.add($0) }
        #expect(subject.current == "a")
        #expect(subject.currentOrNil == "a")
        #expect(subject.value == "a")
        #expect(seen.values == ["a"], "observe fires at once")
        var iterator = subject.values.makeAsyncIterator()
        #expect(await iterator.next() == "a")
        observation.dispose()
    }

    @Test func anUninitializedSubjectStartsWithNothingAndObserversSeeNil() {
        let loop = TestLoop()
        let subject = UninitializedSubject<Int>(loop: loop)
        let seen = Seen<Int?>()
        let observation = subject.observe { seen.add($0) }
        #expect(subject.current == .nothing)
        #expect(seen.values == [nil])
        subject.update(1)
        #expect(seen.values == [nil, 1])
        observation.dispose()
    }

    @Test func postingNilToAnOptionalUninitializedSubjectIsAValue() {
        let loop = TestLoop()
        let subject = UninitializedSubject<String?>(loop: loop)
        subject.post(nil)
        #expect(subject.current == .nothing, "posts are applied on the loop")
        loop.runUntilIdle()
        #expect(subject.current == .value(nil))
    }

    @Test func updatesReachEveryObserverInRegistrationOrder() {
        let loop = TestLoop()
        let subject = subjectOf(0, loop: loop)
        let seen = Seen<String>()
        let first = subject.observe { seen.add("first \($0)") }
        let second = subject.observe { seen.add("second \($0)") }
        subject.value = 1
        #expect(seen.values == ["first 0", "second 0", "first 1", "second 1"])
        first.dispose()
        second.dispose()
    }

    @Test func equalValuesAreConflatedAndNonEquatableValuesAlwaysNotify() {
        struct Opaque { var id: Int }
        let loop = TestLoop()
        let equatable = subjectOf(1, loop: loop)
        let opaque = subjectOf(Opaque(id: 1), loop: loop)
        var equatableCalls = 0
        var opaqueCalls = 0
        let a = equatable.observe { _ in equatableCalls += 1 }
        let b = opaque.observe { _ in opaqueCalls += 1 }
        equatable.value = 1
        equatable.value = 1
        equatable.value = 2
        opaque.value = Opaque(id: 1)
        opaque.value = Opaque(id: 1)
        #expect(equatableCalls == 2, "the first call, then 2")
        #expect(opaqueCalls == 3)
        a.dispose()
        b.dispose()
    }

    @Test func disposedObserversGetNothingMore() {
        let loop = TestLoop()
        let subject = subjectOf(0, loop: loop)
        let seen = Seen<Int>()
        let observation = subject.observe { seen.add($0) }
        subject.value = 1
        observation.dispose()
        subject.value = 2
        loop.runUntilIdle()
        subject.value = 3
        #expect(seen.values == [0, 1])
        #expect(subject.observerCount == 0)
    }

    @Test func aDefaultSubjectReplacesNilAndStaysSilentOnRepeatedNil() {
        let loop = TestLoop()
        let title = subjectOf(nil, default: "Untitled", loop: loop)
        let seen = Seen<String>()
        let observation = title.observe { seen.add($0) }
        title.update(orDefault: nil)
        title.update(orDefault: "Report")
        title.update(orDefault: nil)
        title.update(orDefault: nil)
        title.post(nil)
        title.post("Draft")
        loop.runUntilIdle()
        #expect(seen.values == ["Untitled", "Report", "Untitled", "Draft"])
        #expect(title.defaultValue == "Untitled")
        observation.dispose()
    }

    @Test func postsBeforeAnyoneObservesAreKept() {
        let loop = TestLoop()
        let subject = UninitializedSubject<Int>(loop: loop)
        subject.post(1)
        subject.post(2)
        loop.runUntilIdle()
        let seen = Seen<Int?>()
        let observation = subject.observe { seen.add($0) }
        #expect(seen.values == [2])
        observation.dispose()
    }

    @Test func threeObserversDisposingEachOtherDuringOneNotificationEndWithTheRightValue() {
        let loop = TestLoop()
        let subject = subjectOf(0, loop: loop)
        final class Slots { var disposables: [Disposable] = [] }
        let slots = Slots()
        let seen = Seen<String>()
        for index in 0..<3 {
            slots.disposables.append(
                subject.observe { value in
                    seen.add("\(index):\(value)")
                    guard value > 0 else { return }
                    for disposable in slots.disposables { disposable.dispose() }
                }
            )
        }
        subject.value = 1
        subject.value = 2
        #expect(seen.values == ["0:0", "1:0", "2:0", "0:1"], "observer 0 disposed all three during the round")
        #expect(subject.current == 2)
        loop.runUntilIdle()
        #expect(subject.observerCount == 0)
    }

    @Test func setReturnsOnceTheValueHasReachedTheSubject() async {
        let loop = TestLoop()
        let subject = subjectOf(0, loop: loop)
        let setter = Task.detached { await subject.set(7) }
        await loop.run(until: { subject.current == 7 })
        #expect(await setter.value)
        #expect(subject.current == 7)
        loop.stop()
        await loop.runUntilIdle()
        #expect(await subject.set(8) == false, "a stopped loop applies nothing, and says so")
        #expect(subject.post(9) == false)
        #expect(subject.current == 7)
    }

    @Test func fourThreadsPostingKeepEachThreadsOrderOnTheMainActorWithoutBlocking() async {
        let loop = TestLoop()
        let subject = subjectOf(-1, loop: loop)
        @MainActor final class Order {
            var last = [Int](repeating: -1, count: 4)
            var violations = 0
            var offMainActor = 0
        }
        let order = Order()
        let observation = subject.observe { value in
            guard value >= 0 else { return }
            let (thread, index) = value.quotientAndRemainder(dividingBy: 10_000)
            if index <= order.last[thread] { order.violations += 1 }
            order.last[thread] = index
        }
        let finished = _Locked(0)
        for thread in 0..<4 {
            Thread.detachNewThread {
                for index in 0..<10_000 { subject.post(thread * 10_000 + index) }
                finished.withLock { $0 += 1 }
            }
        }
        await loop.run(until: { finished.withLock { $0 } == 4 && !loop.hasPendingWork })
        #expect(order.violations == 0)
        #expect(order.last == [9_999, 9_999, 9_999, 9_999])
        #expect([9_999, 19_999, 29_999, 39_999].contains(subject.current), "the final value is one of the last posts")
        observation.dispose()
    }

    @Test func valuesConflateForASlowConsumerAndNeverSkipTheLatest() async {
        let loop = TestLoop()
        let subject = subjectOf(0, loop: loop)
        var iterator = subject.values.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        for value in 1...5 { subject.value = value }
        #expect(await iterator.next() == 5, "intermediate values skipped, the latest kept")
        subject.value = 6
        #expect(await iterator.next() == 6)
    }

    @Test func dynamicMemberLookupReadsTheCurrentValue() {
        struct Profile { var name: String }
        let loop = TestLoop()
        let profile = subjectOf(Profile(name: "Ada"), loop: loop)
        #expect(profile.name == "Ada")
        profile.value.name = "Grace"
        #expect(profile.name == "Grace")
    }
}
