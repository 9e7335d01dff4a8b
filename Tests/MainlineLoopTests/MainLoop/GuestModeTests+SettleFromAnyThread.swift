import Dispatch
import Foundation
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

// Settle requests from another thread on a real main loop in guest mode: the handshake between the settle inbox and
// the job queue's sleeping bit must never lose a wake-up.
extension GuestModeTests {
    @Test func aWorkerThatWaitsForEachDeliveryBeforeItsNextRequestIsNeverLeftWaiting() async {
        let loop = MainLoop()
        loop.attachAsGuest()
        let rounds = 20_000
        let delivered = DispatchSemaphore(value: 0)
        let deliveries = _Locked(0)
        let notification = await MainActor.run {
            SettleNotification {
                deliveries.withLock { $0 += 1 }
                delivered.signal()
            }
        }
        // Two threads that only spin, beside the worker and the loop: wake-ups are lost under preemption, if ever.
        let spinning = _Locked(true)
        for _ in 0..<2 {
            Thread.detachNewThread {
                while spinning.withLock({ $0 }) {}
            }
        }
        defer { spinning.withLock { $0 = false } }

        // Each request is made while the loop sleeps, or is about to: the worker waits for the delivery first.
        let stuckAt: Int? = await withCheckedContinuation { (finished: CheckedContinuation<Int?, Never>) in
            Thread.detachNewThread {
                for round in 0..<rounds {
                    #expect(loop.requestSettle(fromAnyThread: notification))
                    // Waits on progress, not on speed: a loop that was woken delivers within this, however busy.
                    if delivered.wait(timeout: .now() + .seconds(60)) == .timedOut {
                        finished.resume(returning: round)
                        return
                    }
                }
                finished.resume(returning: nil)
            }
        }

        #expect(stuckAt == nil, "the loop slept through request \(stuckAt ?? -1) of \(rounds): a lost wake-up")
        #expect(deliveries.withLock { $0 } == (stuckAt ?? rounds), "one delivery per request")
        loop.stop()
        await loop.waitUntilStopped()
    }
}
