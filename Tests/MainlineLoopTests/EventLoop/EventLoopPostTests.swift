import CMainlineShims
import Foundation
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

extension EventLoopTests {
    @Suite("EventLoop posts")
    struct PostTests {
        /// What a flood of posts did. Its state is written only on the loop thread (the lock makes reading it safe
        /// from the test, even when the loop has stalled).
        final class Flood: Sendable {
            struct Counts {
                var next: [Int]
                var producersLeft: Int
                var ran = 0
                var outOfOrder = 0
                var offTheLoop = 0
            }

            let loop: EventLoop
            let counts: _Locked<Counts>
            /// Opened once every producer's last post has run.
            let done = Latch()

            init(loop: EventLoop, producers: Int) {
                self.loop = loop
                counts = _Locked(Counts(next: [Int](repeating: 0, count: producers), producersLeft: producers))
            }

            func record(producer: Int, index: Int) {
                let onLoop = loop.inEventLoop
                counts.withLock {
                    if $0.next[producer] != index { $0.outOfOrder += 1 }
                    if !onLoop { $0.offTheLoop += 1 }
                    $0.next[producer] = index + 1
                    $0.ran += 1
                }
            }

            /// A producer's last post: everything it posted before has run (posts run in per-producer order).
            func producerFinished() {
                let allDone = counts.withLock {
                    $0.producersLeft -= 1
                    return $0.producersLeft == 0
                }
                if allDone { done.open() }
            }
        }

        /// Posts `perProducer` closures from each of `producers` threads and waits until all of them ran. Returns
        /// `nil` when the test was cancelled first (its time limit): the loop stalled, and awaiting it would hang.
        private func flood(_ loop: EventLoop, producers: Int, perProducer: Int) async -> Flood.Counts? {
            let flood = Flood(loop: loop, producers: producers)
            for producer in 0..<producers {
                Thread.detachNewThread {
                    for index in 0..<perProducer {
                        let accepted = loop.post { flood.record(producer: producer, index: index) }
                        precondition(accepted, "post refused during the flood")
                    }
                    loop.post { flood.producerFinished() }
                }
            }
            let finished = await flood.done.wait()
            #expect(finished, "the loop stalled: \(flood.counts.withLock { $0.ran }) posts ran")
            return finished ? flood.counts.withLock { $0 } : nil
        }

        @Test func postsFromFourThreadsRunExactlyOnceInProducerOrder() async {
            let loop = EventLoop()
            guard let flood = await flood(loop, producers: 4, perProducer: 100_000) else { return }
            #expect(flood.ran == 400_000)
            #expect(flood.outOfOrder == 0)
            #expect(flood.offTheLoop == 0)
            loop.stop()
            await loop.waitUntilStopped()
        }

        @Test(.timeLimit(.minutes(1)))  // a lost wake-up shows as a stall
        func aBudgetOfOnePostPerIterationStillRunsEveryPost() async {
            // Producers wake the loop only on empty → non-empty; with a budget of one the loop must wake itself for
            // everything else, or it stalls.
            let loop = EventLoop(name: "budget-1", postsPerIteration: 1)
            guard let flood = await flood(loop, producers: 2, perProducer: 5_000) else { return }
            #expect(flood.ran == 10_000)
            #expect(flood.outOfOrder == 0)
            #expect(flood.offTheLoop == 0)
            loop.stop()
            await loop.waitUntilStopped()
        }

        @Test func postNeverRunsItsBodySynchronouslyNotEvenOnTheLoop() async {
            let loop = EventLoop()
            let log = _Locked<[String]>([])
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                loop.post {
                    loop.post {
                        log.withLock { $0.append("inner ran") }
                        done.resume()
                    }
                    log.withLock { $0.append("inner posted") }
                }
                log.withLock { $0.append("outer posted") }
            }
            #expect(log.withLock { $0 } == ["outer posted", "inner posted", "inner ran"])
            loop.stop()
            await loop.waitUntilStopped()
        }

        @Test func eachPostedClosureIsReleasedRightAfterItRuns() async {
            let loop = EventLoop()
            var tracker: Tracker? = Tracker()
            let weakTracker = WeakBox(tracker)
            let capturedWhileRunning = _Locked(false)
            loop.post { [tracker] in capturedWhileRunning.withLock { $0 = tracker != nil } }
            tracker = nil
            // The second post runs in the same batch, right after the first.
            let releasedBeforeNextPost = await loop.onLoop { weakTracker.object == nil }
            #expect(capturedWhileRunning.withLock { $0 })
            #expect(releasedBeforeNextPost)
            loop.stop()
            await loop.waitUntilStopped()
        }

        @Test func theLoopRunsOnANamedThreadOfItsOwn() async {
            let named = EventLoop(name: "io-worker")
            let unnamed = EventLoop()
            #expect(await named.onLoop { currentThreadName() } == "io-worker")
            // Linux keeps 15 bytes of a thread name.
            #expect(await unnamed.onLoop { currentThreadName() } == "mainline-event-")
            #expect(await named.onLoop { named.inEventLoop && !unnamed.inEventLoop })
            #expect(!named.inEventLoop)
            #expect(await named.threadID() != unnamed.threadID())
            named.stop()
            unnamed.stop()
            await named.waitUntilStopped()
            await unnamed.waitUntilStopped()
        }

        @Test func nowReadsTheSameClockAsTheMainLoop() async {
            let loop = EventLoop()
            // `MainLoop.now` is main-actor isolated (it is a `Loop` requirement).
            let before = await MainActor.run { MainLoop.main.now }
            let onLoop = await loop.onLoop { loop.now }
            let after = await MainActor.run { MainLoop.main.now }
            #expect(before <= onLoop && onLoop <= after)
            loop.stop()
            await loop.waitUntilStopped()
        }
    }
}
