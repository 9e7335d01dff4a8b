import Dispatch
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

extension EventLoopTests {
    /// An `EventLoop` with a limit on pending posts, and stopped with a drain deadline. The loop's thread is held in
    /// a post (a semaphore) while the test queues work behind it, so what is pending is exactly what the test posted.
    @Suite("EventLoop post limits and drain deadlines")
    struct PostLimitTests {
        @Test func aFullLoopRefusesPostsUntilItHasRunSome() async {
            let loop = EventLoop(name: "limited", budgets: LoopBudgets(postsPerIteration: 4, maxPendingPosts: 10))
            let gate = DispatchSemaphore(value: 0)
            let ran = _Locked<[Int]>([])
            let drained = Latch()
            #expect(loop.tryPost { gate.wait() } == .accepted)
            // The held post counts as pending until its post phase ends: nine more fit.
            var results: [PostResult] = []
            for index in 0..<12 {
                results.append(
                    loop.tryPost {
                        ran.withLock { $0.append(index) }
                        if index == 8 { drained.open() }
                    }
                )
            }
            #expect(results == Array(repeating: .accepted, count: 9) + Array(repeating: .full, count: 3))
            #expect(loop.post {} == false)
            #expect(loop.driver.queue.rejectedCount == 4)
            gate.signal()
            #expect(await drained.wait())
            #expect(ran.withLock { $0 } == Array(0..<9), "every accepted post ran once, in order")
            // Room again once the loop has run what it held.
            let accepted = Latch()
            while !loop.post({ accepted.open() }) { await Task.yield() }
            #expect(await accepted.wait())
            loop.stop()
            #expect(loop.tryPost {} == .stopped)
            await loop.waitUntilStopped()
        }

        @Test func aDrainDeadlineReleasesPostsStillWaitingButExecutorJobsStillRun() async {
            let loop = EventLoop(name: "deadline")
            let gate = DispatchSemaphore(value: 0)
            let holding = DispatchSemaphore(value: 0)
            let ran = _Locked(0)
            var tracker: Tracker? = Tracker()
            let weakTracker = WeakBox(tracker)
            loop.post {
                holding.signal()
                gate.wait()
            }
            holding.wait()  // the loop's thread is inside the post: everything below waits behind it
            for _ in 0..<1_000 {
                loop.post { [tracker] in
                    _ = tracker; ran.withLock { $0 += 1 }
                }
            }
            tracker = nil
            // A task on the loop that is still running when the loop stops: its jobs must run past the deadline.
            let actor = LoopBound(loop: loop)
            let task = Task(executorPreference: loop) {
                for _ in 0..<10 { await actor.touch() }
                return await actor.calls
            }
            loop.stop(drainDeadline: .zero)
            gate.signal()
            #expect(await task.value == 10)
            await loop.waitUntilStopped()
            #expect(ran.withLock { $0 } + loop.postsDiscarded == 1_000)
            #expect(loop.postsDiscarded == 1_000, "a zero deadline lets no waiting post start")
            #expect(weakTracker.object == nil, "released bodies are freed")
            #expect(loop.loopCloseResult == 0)
        }

        @Test func withoutADeadlineStopRunsEverythingPosted() async {
            let loop = EventLoop(name: "no-deadline")
            let gate = DispatchSemaphore(value: 0)
            let ran = _Locked(0)
            loop.post { gate.wait() }
            for _ in 0..<1_000 { loop.post { ran.withLock { $0 += 1 } } }
            loop.stop()
            gate.signal()
            await loop.waitUntilStopped()
            #expect(ran.withLock { $0 } == 1_000)
            #expect(loop.postsDiscarded == 0)
        }
    }
}
