import Foundation
import MainlineEvents
import MainlineLoop
import MainlineObservables
import MainlineTesting
import Testing

/// A `SimpleEventToken` used as a `Disposable`: the disposable owns the token.
@MainActor
@Suite("Disposable of a SimpleEventToken")
struct DisposableSimpleEventTokenTests {
    @Test func aTokenInABagEndsItsObservationWhenTheBagIsDisposed() {
        let event = SimpleEvent()
        var calls = 0
        let bag = DisposeBag()
        let disposable = event.addObserver { _ in calls += 1 }?.addTo(bag)
        event.trigger()
        bag.dispose()
        event.trigger()
        #expect(calls == 1)
        _ = disposable  // still held: disposing ended the observation, not a release
    }

    @Test func disposingFromAnotherThreadStopsTheObserverAtOnce() {
        let event = SimpleEvent()
        var calls = 0
        let disposable = Disposable(event.addObserver { _ in calls += 1 }!)
        // The main actor waits, without yielding, until another thread has disposed: the removal that dispose()
        // hands to the main actor cannot have run before the trigger.
        let disposed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            disposable.dispose()
            disposed.signal()
        }
        disposed.wait()
        event.trigger()
        #expect(calls == 0, "skipped even before the main actor removed it")
    }

    @Test func releasingTheDisposableReleasesTheTokenAndSoEndsTheObservation() {
        let event = SimpleEvent()
        var calls = 0
        var disposable: Disposable? = Disposable(event.addObserver { _ in calls += 1 }!)
        event.trigger()
        disposable = nil
        event.trigger()
        #expect(calls == 1)
        _ = disposable
    }

    @Test func disposingFromAWorkerThreadReleasesTheObserverInAJobPostedToTheEventsLoop() {
        let loop = TestLoop()
        let event = LazySimpleEvent(loop: loop)
        final class Held {}
        var held: Held? = Held()
        weak let watched = held
        let disposable = Disposable(event.addObserver { [held] _ in _ = held }!)
        held = nil
        let postsBefore = loop.postsRun
        let disposed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            disposable.dispose()
            disposed.signal()
        }
        disposed.wait()
        #expect(watched != nil, "the block leaves its list on the loop, not on the disposing thread")
        loop.runIteration()
        #expect(loop.postsRun == postsBefore + 1, "one job posted to the event's loop: no Task")
        #expect(watched == nil, "the list let go of the block in that job")
    }

    @Test func disposingATokenOfAnotherKindFromAWorkerThreadRemovesItOnTheMainLoop() async {
        @MainActor final class ForeignToken: SimpleEventToken {
            var removed: CheckedContinuation<Void, Never>?
            func remove() { removed?.resume() }
        }
        let token = ForeignToken()
        let disposable = Disposable(token)
        await withCheckedContinuation { continuation in
            token.removed = continuation
            Thread.detachNewThread { disposable.dispose() }
        }
        #expect(disposable.isDisposed)
    }
}
