import Dispatch
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// How wake-ups reach the engine: one per batch from another thread, none for a loop that posts to itself.
///
/// Counted, not timed: the engine counts its async-handle callbacks (another thread's `uv_async_send`), and guest mode
/// counts the pumps it queued on the main queue to wake the loop (when queued, so the counts are exact).
@Suite("Engine wake-ups", .serialized, .timeLimit(.minutes(2)))
struct EngineWakeUpTests {
    private static let rounds = 50
    private static let selfPosts = 1_000

    @Test func aGuestLoopIsWokenByAtMostOneMainQueuePumpPerBatchAndNeverThroughTheEventfd() async {
        let loop = MainLoop()
        loop.attachAsGuest()
        for _ in 0..<Self.rounds {
            let ran = Latch()
            // From another thread, into an empty queue: one wake-up each.
            await Task.detached { _ = loop.post { ran.open() } }.value
            #expect(await ran.wait())
        }
        let counts = await loop.readWakeUpCounts()
        // At most the pump `attachAsGuest()` queues, one per round, and one for the post that read the counts: a post
        // that arrives while the loop is still in the phase that ran the previous one (the latch opens inside it) finds
        // the loop awake and wakes nothing.
        #expect((2...Self.rounds + 2).contains(counts?.queuedPumps ?? 0))
        #expect(counts?.asyncCallbacks == 0)
        loop.stop()
        await loop.waitUntilStopped()
    }

    @Test func aGuestLoopThatPostsToItselfQueuesNoPumpForIt() async {
        let loop = MainLoop()
        loop.attachAsGuest()
        let before = await loop.readWakeUpCounts()
        let done = Latch()
        @MainActor final class Chain {
            var left = EngineWakeUpTests.selfPosts
            func step(_ loop: MainLoop, _ done: Latch) {
                left -= 1
                if left == 0 { return done.open() }
                loop.post { self.step(loop, done) }
            }
        }
        let chain = Chain()
        _ = loop.post { chain.step(loop, done) }
        #expect(await done.wait())
        let after = await loop.readWakeUpCounts()
        // The post that started the chain and (unless it found the loop still awake) the one that read the counts;
        // nothing for 1,000 self-posts.
        #expect((1...2).contains(after.map { $0.queuedPumps - (before?.queuedPumps ?? 0) } ?? 0))
        #expect(after?.asyncCallbacks == 0)
        loop.stop()
        await loop.waitUntilStopped()
    }

    @Test func anEventLoopThatPostsToItselfNeedsNoEventfdWakeUpForIt() async {
        let loop = EventLoop(name: "self-posting")
        let done = Latch()
        final class Chain: @unchecked Sendable {
            // @unchecked Sendable: `left` is touched only on the loop thread.
            var left = EngineWakeUpTests.selfPosts
            func step(_ loop: EventLoop, _ done: Latch) {
                left -= 1
                if left == 0 { return done.open() }
                loop.post { self.step(loop, done) }
            }
        }
        let chain = Chain()
        loop.post { chain.step(loop, done) }
        #expect(await done.wait())
        // One wake-up for the post that started the chain, and one for the post that reads the count unless it arrives
        // while the loop is still in the phase that opened the latch; none for the 1,000 self-posts.
        #expect(await (1...2).contains(loop.onLoop { loop.driver.asyncCallbacks }))
        loop.stopAndWait()
    }

    @Test func anEventLoopThatSchedulesItsEarliestTimerFromItsOwnThreadNeedsNoEventfdWakeUpForIt() async {
        let loop = EventLoop(name: "self-scheduling")
        let done = Latch()
        final class Chain: @unchecked Sendable {
            // @unchecked Sendable: `left` and `timers` are touched only on the loop thread.
            var left = EngineWakeUpTests.selfPosts
            var timers: [EventLoop.Scheduled] = []
            func step(_ loop: EventLoop, _ done: Latch) {
                // Due before every timer scheduled so far: each becomes the earliest, which asks the loop to re-arm.
                timers.append(loop.schedule(after: .seconds(60 + left)) {})
                left -= 1
                if left == 0 { return done.open() }
                loop.post { self.step(loop, done) }
            }
        }
        let chain = Chain()
        loop.post { chain.step(loop, done) }
        #expect(await done.wait())
        // As for posts: the loop re-arms before it polls, so a timer scheduled on its own thread wakes nothing; one
        // wake-up for the post that started the chain, and one for the post that reads the count.
        #expect(await (1...2).contains(loop.onLoop { loop.driver.asyncCallbacks }))
        loop.stopAndWait()
    }
}

extension MainLoop {
    fileprivate typealias WakeUpCounts = (asyncCallbacks: Int, queuedPumps: Int)

    /// Reads ``wakeUpCounts`` on the loop, through a post from another thread.
    fileprivate func readWakeUpCounts() async -> WakeUpCounts? {
        await Task.detached {
            await withCheckedContinuation { (done: CheckedContinuation<WakeUpCounts?, Never>) in
                _ = self.post { done.resume(returning: self.wakeUpCounts) }
            }
        }.value
    }
}
