import Dispatch
import Foundation
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

// A limit on pending posts and a drain deadline on a real main loop in guest mode.
extension GuestModeTests {
    @Test func aFullMainLoopRefusesPostsFromOtherThreadsUntilItHasRunSome() async {
        let loop = MainLoop(budgets: LoopBudgets(postsPerIteration: 4, maxPendingPosts: 10))
        loop.attachAsGuest()
        let holding = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        @MainActor final class Ran { var indices: [Int] = [] }
        let ran = Ran()
        let drained = Latch()
        // Holds the loop (and the main queue) for as long as a worker takes to post twelve closures.
        loop.post {
            holding.signal()
            gate.wait()
        }
        let results = await Task.detached { () -> [PostResult] in
            holding.wait()
            defer { gate.signal() }
            // The held post counts as pending until its post phase ends: nine more fit.
            return (0..<12).map { index in
                loop.tryPost {
                    ran.indices.append(index)
                    if index == 8 { drained.open() }
                }
            }
        }.value
        #expect(results == Array(repeating: .accepted, count: 9) + Array(repeating: .full, count: 3))
        #expect(await drained.wait())
        #expect(await ran.indices == Array(0..<9))
        #expect(loop.core.posts.rejectedCount == 3)
        loop.stop()
        #expect(loop.tryPost {} == .stopped)
        await loop.waitUntilStopped()
        #expect(_UVResources.live(of: loop) == _UVResources.Counts())
    }

    @Test func aMainLoopStoppedWithAZeroDrainDeadlineReleasesWaitingPostsUnrunAndStillRunsItsShutdownHooks() async {
        let loop = MainLoop()
        loop.attachAsGuest()
        let holding = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        @MainActor final class Counts {
            var ran = 0
            var hookRan = false
        }
        let counts = Counts()
        await loop.onLoop { loop.onShutdown { counts.hookRan = true } }
        loop.post {
            holding.signal()
            gate.wait()
        }
        await Task.detached {
            holding.wait()
            for _ in 0..<500 { loop.post { counts.ran += 1 } }
            loop.stop(drainDeadline: .zero)
            gate.signal()
        }.value
        await loop.waitUntilStopped()
        #expect(await counts.ran == 0)
        #expect(await loop.core.discardedAtShutdown == 500)
        #expect(await counts.hookRan)
        #expect(_UVResources.live(of: loop) == _UVResources.Counts())
    }
}

extension MainLoop {
    /// Runs `body` on the loop and waits for it (for these tests; not the public `run` the async issue adds).
    fileprivate func onLoop(_ body: @escaping @MainActor @Sendable () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = post {
                body()
                done.resume()
            }
        }
    }
}
