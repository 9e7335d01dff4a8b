import Dispatch
import Foundation
import MainlineEvents
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

// Events on a real main loop in guest mode, counting the libuv resources of its own loop (`_UVResources.live(of:)`).
extension GuestModeTests {
    @Test func aLazyEventTriggeredFromFourThreadsDeliversFarFewerTimesThanTriggeredAllOnTheLoop() async {
        let loop = MainLoop()
        loop.attachAsGuest()
        let producers = 4
        let triggersPerProducer = 100_000
        let finished = _Locked(0)

        @MainActor final class Consumer {
            var deliveries = 0
            var outsideIteration = 0
            var token: SimpleEventToken?
            // Held here: an event deallocated while a delivery is pending delivers nothing.
            var event: LazySimpleEvent?
            var done: CheckedContinuation<Void, Never>?
        }
        let consumer = await Consumer()

        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.post {
                consumer.done = done
                let event = LazySimpleEvent(loop: loop)
                consumer.event = event
                event.addObserver(&consumer.token) { _ in
                    dispatchPrecondition(condition: .onQueue(.main))
                    if !loop.isInsideIteration { consumer.outsideIteration += 1 }
                    consumer.deliveries += 1
                    // Each producer triggers once more after counting itself finished, so a delivery always follows
                    // the moment the last one finished.
                    if finished.withLock({ $0 }) == producers {
                        consumer.done?.resume()
                        consumer.done = nil
                    }
                }
                for _ in 0..<producers {
                    Thread.detachNewThread {
                        for _ in 0..<triggersPerProducer { event.trigger() }
                        finished.withLock { $0 += 1 }
                        event.trigger()
                    }
                }
            }
        }

        let triggers = producers * (triggersPerProducer + 1)
        await MainActor.run {
            #expect(consumer.deliveries >= 1)
            #expect(consumer.deliveries * 10 < triggers, "\(consumer.deliveries) deliveries for \(triggers) triggers")
            #expect(consumer.outsideIteration == 0, "every delivery ran inside a loop iteration, on the main actor")
            consumer.token = nil
            consumer.event = nil
        }
        loop.stop()
        await loop.waitUntilStopped()
        #expect(_UVResources.live(of: loop) == _UVResources.Counts())
    }
}
