import Dispatch
import Foundation
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

extension EventLoopTests {
    @Suite("EventLoop idle phase")
    struct IdleTests {
        @Test func anIdleBodyFromAnotherThreadRunsOnTheLoopThreadAfterABurstOfPostsInRegistrationOrder() async {
            let loop = EventLoop(name: "idle", budgets: LoopBudgets(postsPerIteration: 64))
            let total = 20_000
            let state = _Locked((ran: 0, log: [String](), offTheLoop: 0))
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                // The first post holds the loop until the burst and both idle bodies are queued.
                let everythingQueued = DispatchSemaphore(value: 0)
                loop.post {
                    everythingQueued.wait()
                    state.withLock { $0.ran += 1 }
                }
                for _ in 1..<total { loop.post { state.withLock { $0.ran += 1 } } }
                for name in ["first", "second"] {
                    loop.whenIdle {
                        state.withLock {
                            if !loop.inEventLoop { $0.offTheLoop += 1 }
                            $0.log.append("\(name) after \($0.ran)")
                        }
                        if name == "second" { done.resume() }
                    }
                }
                everythingQueued.signal()
            }
            let result = state.withLock { $0 }
            #expect(result.log == ["first after \(total)", "second after \(total)"])
            #expect(result.offTheLoop == 0)
            loop.stop()
            await loop.waitUntilStopped()
        }

        @Test func aSelfReRegisteringBodyDoesNotSpinAndWhatItPostsRunsAfterIt() async {
            let loop = EventLoop(name: "idle")
            let runs = _Locked(0)
            @Sendable func register() {
                loop.whenIdle {
                    runs.withLock { $0 += 1 }
                    register()
                }
            }
            // The body's first run: the idle phase of the iteration that registers it (the latch, registered after it,
            // opens in the same phase).
            let firstRun = Latch()
            loop.post {
                register()
                loop.whenIdle { firstRun.open() }
            }
            #expect(await firstRun.wait())
            #expect(runs.withLock { $0 } == 1)
            // The test drives the loop's iterations itself: each round posts once and waits for that iteration's idle
            // phase, where the re-registering body runs first (registration order). Nothing else wakes this loop, so
            // a loop that does not spin runs the body exactly once per round; one that spins runs it over and over
            // while each round trip is on its way.
            let rounds = 50
            for round in 1...rounds {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    loop.post { loop.whenIdle { done.resume() } }
                }
                let total = runs.withLock { $0 }
                #expect(total == round + 1, "round \(round): the body ran \(total) times")
                if total != round + 1 { break }
            }
            loop.stop()
            await loop.waitUntilStopped()
        }

        @Test func cancelledAndStoppedIdleBodiesDoNotRun() async {
            let loop = EventLoop(name: "idle")
            let ran = _Locked<[String]>([])
            let gate = DispatchSemaphore(value: 0)
            loop.post { gate.wait() }
            let cancelled = loop.whenIdle { ran.withLock { $0.append("cancelled") } }
            let pending = loop.whenIdle { ran.withLock { $0.append("pending") } }
            cancelled.cancel()
            #expect(!cancelled.isActive)
            #expect(loop.snapshot().pendingIdleBodies == 1, "the cancelled body no longer counts")
            loop.stop()
            gate.signal()
            await loop.waitUntilStopped()
            #expect(ran.withLock { $0 }.isEmpty)
            #expect(!pending.isActive, "released at shutdown")
            #expect(!loop.whenIdle {}.isActive, "a stopped loop hands back a spent registration")
        }
    }
}
