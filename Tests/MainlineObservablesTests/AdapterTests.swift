import MainlineLoop
import MainlineObservables
import MainlineTesting
import Observation
import Testing

@MainActor @Observable
final class Settings {
    var volume = 5
}

/// The adapters (from an `AsyncSequence`, a read/write pair, a key path) and two-way binding.
@MainActor
@Suite("Observable adapters and bindings")
struct AdapterTests {
    @Test func anObservableOfAnAsyncSequenceTakesEachElementAndKeepsTheLast() async {
        let loop = TestLoop()
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let observable = observableOf(stream, loop: loop)
        let seen = Seen<Int?>()
        let observation = observable.observe { seen.add($0) }
        for value in 1...3 { continuation.yield(value) }
        continuation.finish()
        await loop.run(until: { observable.currentOrNil == 3 })
        #expect(seen.values == [nil, 1, 2, 3])
        observation.dispose()
    }

    @Test func aDefaultObservableOfOptionalElementsUsesTheDefaultForNil() async {
        let loop = TestLoop()
        let (stream, continuation) = AsyncStream.makeStream(of: String?.self)
        let observable = observableOf(stream, default: "none", loop: loop)
        let seen = Seen<String>()
        let observation = observable.observe { seen.add($0) }
        continuation.yield("a")
        continuation.yield(nil)
        continuation.finish()
        await loop.run(until: { seen.values.count == 3 })
        #expect(seen.values == ["none", "a", "none"])
        observation.dispose()
    }

    @Test func releasingAnAdaptedObservableCancelsItsFeed() async {
        let loop = TestLoop()
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let terminated = _Locked(false)
        continuation.onTermination = { _ in terminated.withLock { $0 = true } }
        var observable: UninitializedObservable<Int>? = observableOf(stream, loop: loop)
        _ = observable
        observable = nil
        await loop.run(until: { terminated.withLock { $0 } })
        #expect(terminated.withLock { $0 })
    }

    @Test func aSubjectOverAReadWritePairWritesThroughBeforeNotifying() {
        let loop = TestLoop()
        var stored = 1
        var seenStoredInObserver: [Int] = []
        let subject = subjectOf(get: { stored }, set: { stored = $0 }, loop: loop)
        let observation = subject.observe { _ in seenStoredInObserver.append(stored) }
        subject.value = 2
        subject.value = 2
        #expect(stored == 2)
        #expect(seenStoredInObserver == [1, 2])
        observation.dispose()
    }

    @Test func aSubjectOverAKeyPathWritesToTheObject() {
        let loop = TestLoop()
        let settings = Settings()
        let volume = subjectOf(settings, \.volume, loop: loop)
        #expect(volume.value == 5)
        volume.value = 7
        #expect(settings.volume == 7)
    }

    @Test func twoSubjectsBoundBothWaysStayEqualWithoutEcho() {
        let loop = TestLoop()
        let left = subjectOf("a", loop: loop)
        let right = subjectOf("b", loop: loop)
        var rightNotifications = 0
        var leftNotifications = 0
        let l = left.observe { _ in leftNotifications += 1 }
        let r = right.observe { _ in rightNotifications += 1 }
        let binding = left.bind(to: right)
        #expect(right.value == "a", "the bound subject takes the binder's value first")
        left.value = "x"
        #expect(right.value == "x")
        right.value = "y"
        #expect(left.value == "y")
        #expect(leftNotifications == 3, "initial, x, y: the echo of each change notifies no one")
        #expect(rightNotifications == 4, "initial, a, x, y")
        binding.dispose()
        loop.runUntilIdle()
        left.value = "z"
        #expect(right.value == "y", "disposed: no longer bound")
        l.dispose()
        r.dispose()
    }

    @Test func aSubjectBoundToAnObservablePropertyFollowsItBothWays() async {
        let loop = TestLoop()
        let settings = Settings()
        let volume = subjectOf(1, loop: loop)
        let binding = volume.bind(to: settings, \.volume)
        #expect(settings.volume == 1, "the property takes the subject's value first")
        volume.value = 3
        #expect(settings.volume == 3)
        settings.volume = 9
        await loop.runUntilIdle()
        #expect(volume.value == 9, "a change to the property reaches the subject on the loop")
        settings.volume = 4
        await loop.runUntilIdle()
        #expect(volume.value == 4, "tracking restarts after each change")
        binding.dispose()
        settings.volume = 2
        await loop.runUntilIdle()
        #expect(volume.value == 4)
    }
}
