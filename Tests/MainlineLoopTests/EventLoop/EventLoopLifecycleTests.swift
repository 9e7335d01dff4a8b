import Foundation
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

extension EventLoopTests {
    /// Stopping, and proof that a stopped loop leaves nothing behind: no libuv loop or handle, no `EventLoop`.
    ///
    /// The leak checks read `_UVResources.live(.eventLoop)`, the counts of `EventLoop`s only: the `MainLoop` suites
    /// that run in parallel keep their own counts, so does the loop of every `LoopInspector` the inspector suites start
    /// beside them (`.inspector`), and `EventLoopTests` runs one test at a time, so the baseline holds.
    @Suite("EventLoop lifecycle")
    struct LifecycleTests {
        // Stop, then refuse posts (also from the draining loop) and drain in order: `SerialLoopContractTests`, for
        // every loop. That a stopped EventLoop closes its libuv loop cleanly is checked by the tests below.

        @Test func stopCancelsTimersAndReleasesTheirCallbacks() async {
            let loop = EventLoop()
            var tracker: Tracker? = Tracker()
            let weakTracker = WeakBox(tracker)
            let pending = loop.schedule(after: .seconds(3_600)) { [tracker] in _ = tracker }
            let repeating = loop.scheduleRepeating(every: .seconds(3_600)) { [tracker] _ in _ = tracker }
            tracker = nil
            loop.stop()
            #expect(pending.isCancelled && repeating.isCancelled)
            #expect(weakTracker.object == nil)
            let afterStop = loop.schedule(after: .zero) {}
            #expect(afterStop.isCancelled)
            await loop.waitUntilStopped()
            #expect(loop.loopCloseResult == 0)
        }

        @Test func tasksAlreadyRunningOnTheLoopFinishWhileItStops() async {
            let loop = EventLoop()
            let actor = LoopBound(loop: loop)
            let (finishedOnTheLoop, calls) = await Task(executorPreference: loop) { () -> (Bool, Int) in
                loop.stop()
                // Each of these suspensions enqueues a job on the stopping loop: it must still run them.
                for _ in 0..<10 {
                    await Task.yield()
                    await actor.touch()
                }
                return (loop.inEventLoop, await actor.calls)
            }.value
            #expect(finishedOnTheLoop)
            #expect(calls == 10)
            // (The actor cannot be called any more: its executor is stopping, and a job after the stop would trap.)
            await loop.waitUntilStopped()
            #expect(loop.loopCloseResult == 0)
        }

        @Test func stopAndWaitReturnsOnceTheLoopHasClosedEverything() async {
            let baseline = _UVResources.live(.eventLoop)
            let loop = EventLoop()
            #expect(loop.loopCloseResult == nil)
            let ran = _Locked(0)
            // Work still queued at stop: the loop takes a while to drain it, and stopAndWait() must wait for all of it.
            for _ in 0..<100_000 { loop.post { ran.withLock { $0 += 1 } } }
            let seenOnReturn = await withCheckedContinuation {
                (done: CheckedContinuation<(Int, Int32?, _UVResources.Counts), Never>) in
                Thread.detachNewThread {
                    loop.stopAndWait()
                    done.resume(returning: (ran.withLock { $0 }, loop.loopCloseResult, _UVResources.live(.eventLoop)))
                }
            }
            #expect(seenOnReturn.0 == 100_000)
            #expect(seenOnReturn.1 == 0)
            #expect(seenOnReturn.2 == baseline)
            loop.stopAndWait()  // idempotent: returns at once
            await loop.waitUntilStopped()
        }

        @Test(.timeLimit(.minutes(1)))
        func droppingTheLastReferenceToARunningLoopStopsIt() async {
            let baseline = _UVResources.live(.eventLoop)
            let ran = _Locked(false)
            var loop: EventLoop? = EventLoop()
            let driver = loop!.driver
            let weakLoop = WeakBox(loop)
            loop!.post { ran.withLock { $0 = true } }
            loop = nil
            #expect(weakLoop.object == nil)
            // Nothing references the loop any more: wait on its driver, cancellably, so a loop that never stops fails
            // the test at its time limit rather than hanging it.
            let stopped = Latch()
            Task {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    if !driver.lifecycle.withLock({ $0.addWaiter(.suspended(done)) }) { done.resume() }
                }
                stopped.open()
            }
            guard await stopped.wait() else {
                Issue.record("an EventLoop nobody references kept running")
                return
            }
            #expect(ran.withLock { $0 })
            #expect(driver.lifecycle.withLock { $0.closeResult } == 0)
            #expect(_UVResources.live(.eventLoop) == baseline)
        }

        @Test func aThousandCreateRunStopCyclesLeakNoHandleNoLoopAndNoEventLoop() async {
            let baseline = _UVResources.live(.eventLoop)
            var weakLoops: [WeakBox<EventLoop>] = []
            var closeResults: [Int32?] = []
            for cycle in 0..<1_000 {
                let loop = EventLoop()
                let actor = LoopBound(loop: loop)
                // Use every kind of work: a post, a pending and a repeating timer, an actor job.
                await withCheckedContinuation { (ran: CheckedContinuation<Void, Never>) in
                    loop.post {
                        loop.schedule(after: .seconds(60)) {}
                        loop.scheduleRepeating(every: .milliseconds(1)) { _ in }
                        ran.resume()
                    }
                }
                await actor.touch()
                if cycle.isMultiple(of: 2) {
                    loop.stop()  // from the test's thread
                } else {
                    loop.post { loop.stop() }  // from the loop itself
                }
                await loop.waitUntilStopped()
                closeResults.append(loop.loopCloseResult)
                weakLoops.append(WeakBox(loop))
            }
            #expect(closeResults.allSatisfy { $0 == 0 }, "uv_loop_close found an open handle")
            #expect(_UVResources.live(.eventLoop) == baseline)
            #expect(weakLoops.allSatisfy { $0.object == nil }, "a stopped EventLoop is still referenced")
        }
    }
}
