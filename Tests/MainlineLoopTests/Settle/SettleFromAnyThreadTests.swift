import Dispatch
import Foundation
import MainlineLoop
import MainlineTesting
import Testing

/// `Loop.requestSettle(fromAnyThread:)`: a settle request from another thread reaches the settle phase without a
/// posted job, keeps `requestSettle(_:)`'s rules, and is settled in the iteration that sees it.
@MainActor
@Suite("Settle requests from any thread")
struct SettleFromAnyThreadTests {
    /// Runs `body` on a thread of its own and waits for it: the loop (the main actor) stays busy meanwhile, as a loop
    /// running a callback would.
    nonisolated func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        done.wait()
    }

    @Test func aRequestMadeWhileTheLoopRunsIsSettledInThatIterationWithoutAPostedJob() {
        let loop = TestLoop()
        var delivered = 0
        let notification = SettleNotification { delivered += 1 }
        loop.post { onAnotherThread { #expect(loop.requestSettle(fromAnyThread: notification)) } }
        let before = loop.snapshot().counters

        loop.runIteration()

        #expect(delivered == 1)
        let after = loop.snapshot().counters
        #expect(after.iterations == before.iterations + 1, "settled in the iteration whose post made the request")
        #expect(after.postsRun == before.postsRun + 1, "only the test's own post ran")
        #expect(loop.settleRequestsFromOtherThreads == 1)
    }

    @Test func requestsFromManyThreadsCoalesceIntoOneDeliveryAfterTheLowerHeightsOfTheRound() {
        let loop = TestLoop()
        var order: [String] = []
        let derived = SettleNotification(height: 1) { order.append("derived") }
        let source = SettleNotification(height: 0) { order.append("source") }
        loop.post {
            self.onAnotherThread {
                DispatchQueue.concurrentPerform(iterations: 8) { _ in
                    for _ in 0..<1_000 { loop.requestSettle(fromAnyThread: derived) }
                }
            }
            loop.requestSettle(source)
        }

        loop.runIteration()

        #expect(order == ["source", "derived"], "by height, once each however many requests")
        #expect(loop.settleRequestsFromOtherThreads == 8_000, "each request is taken; they coalesce in the queue")
    }

    @Test func aRequestWhoseNotificationIsGoneByTheSettlePhaseDeliversNothing() {
        let loop = TestLoop()
        final class Vanishing: SettleRequest {
            @MainActor func notificationToSettle() -> SettleNotification? { nil }
        }
        onAnotherThread { #expect(loop.requestSettle(fromAnyThread: Vanishing())) }
        #expect(loop.hasPendingWork, "a request waits for settle: work due now")
        loop.runIteration()
        #expect(loop.settleRequestsFromOtherThreads == 1)
        #expect(loop.snapshot().counters.settleDeliveries == 0)
    }

    @Test func aLoopThatHasShutDownRefusesRequestsFromAnyThread() {
        let loop = TestLoop()
        var delivered = 0
        let notification = SettleNotification { delivered += 1 }
        // Made after `stop()`, before the shutdown step: settled by that step, with the hooks' work.
        loop.stop()
        onAnotherThread { #expect(loop.requestSettle(fromAnyThread: notification)) }
        loop.runIteration()
        #expect(delivered == 1)
        onAnotherThread { #expect(!loop.requestSettle(fromAnyThread: notification)) }
        loop.runIteration()
        #expect(delivered == 1)
    }

    @Test func aLoopWithoutASettleInboxOfItsOwnPostsOneJobThatMakesTheRequest() {
        let loop = ExternalLoop()
        let notification = SettleNotification {}
        onAnotherThread { #expect(loop.requestSettle(fromAnyThread: notification)) }
        #expect(loop.queue.withLock { $0.count } == 1, "the default: one posted job")
    }
}
