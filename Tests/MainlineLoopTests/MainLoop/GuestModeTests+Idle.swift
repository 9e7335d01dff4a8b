import Dispatch
import Foundation
import Testing

@testable import MainlineLoop

extension GuestModeTests {
    @Test func anIdleBodyRegisteredFromAnotherThreadRunsOnTheMainActorAfterABurstOfPostsHasFullyRun() async {
        let loop = MainLoop()
        loop.attachAsGuest()
        // A small budget: the burst takes many iterations, and idle must wait for all of them.
        await MainActor.run { loop.budgets = LoopBudgets(postsPerIteration: 64) }
        let total = 20_000
        let counts = _Locked((ran: 0, ranAtIdle: -1, idleRuns: 0))
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                // The first post holds the loop until the whole burst and the idle body are queued: whatever the
                // scheduling, the loop meets the idle body with posts still waiting behind its snapshot.
                let everythingQueued = DispatchSemaphore(value: 0)
                loop.post {
                    everythingQueued.wait()
                    counts.withLock { $0.ran += 1 }
                }
                for _ in 1..<total { loop.post { counts.withLock { $0.ran += 1 } } }
                defer { everythingQueued.signal() }
                loop.whenIdle {
                    dispatchPrecondition(condition: .onQueue(.main))
                    MainActor.assertIsolated()
                    counts.withLock {
                        $0.ranAtIdle = $0.ran
                        $0.idleRuns += 1
                    }
                    done.resume()
                }
            }
        }
        let result = counts.withLock { $0 }
        #expect(result.ranAtIdle == total, "idle ran before the burst had fully run")
        #expect(result.idleRuns == 1)
        loop.stop()
        await loop.waitUntilStopped()
    }

    @Test func anIdleBodyAloneAttachesAnIdleLoopAndWhatItPostsAndSettlesRunsAfterIt() async {
        let loop = MainLoop()
        let log = _Locked<[String]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.whenIdle {
                log.withLock { $0.append("idle") }
                loop.post { log.withLock { $0.append("posted") } }
                loop.requestSettle(
                    SettleNotification {
                        log.withLock { $0.append("settled") }
                        done.resume()
                    }
                )
            }
        }
        #expect(log.withLock { $0 } == ["idle", "posted", "settled"])
        #expect(loop.state == .guest)
        loop.stop()
        await loop.waitUntilStopped()
    }

    @Test func aSelfReRegisteringIdleBodyDoesNotSpinALoopThatHasNothingElseToDo() async throws {
        let loop = MainLoop()
        loop.attachAsGuest()
        let runs = _Locked(0)
        @MainActor func register() {
            loop.whenIdle {
                runs.withLock { $0 += 1 }
                register()
            }
        }
        await MainActor.run { register() }
        try await Task.sleep(for: .milliseconds(200))
        let spinning = runs.withLock { $0 }
        // A spinning loop runs the body hundreds of thousands of times in 200 ms; this one ran it once, then blocked.
        // (Other tests' main-actor work in this process may give it a few more iterations.)
        #expect(spinning >= 1)
        #expect(spinning < 50, "the loop spun: \(spinning) idle runs in 200 ms")
        // A post gives it one more iteration, and one more run: in that iteration's idle phase, before the body the
        // post registers (registration order).
        let before = runs.withLock { $0 }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.post { loop.whenIdle { done.resume() } }
        }
        #expect(runs.withLock { $0 } > before)
        loop.stop()
        await loop.waitUntilStopped()
    }

    @Test func stoppingReleasesPendingIdleBodiesUnrun() async {
        let loop = MainLoop()
        loop.attachAsGuest()
        let ran = _Locked(false)
        let registration: IdleRegistration = await MainActor.run {
            loop.stop()  // the queue closes at once; the loop shuts down at its next iteration
            return loop.whenIdle { ran.withLock { $0 = true } }
        }
        await loop.waitUntilStopped()
        #expect(!registration.isActive)
        #expect(ran.withLock { $0 } == false)
        #expect(!loop.whenIdle {}.isActive, "a stopped loop hands back a spent registration")
    }
}
