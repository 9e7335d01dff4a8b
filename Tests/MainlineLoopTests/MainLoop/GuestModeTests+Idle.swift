import Dispatch
import Foundation
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

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

    @Test func aSelfReRegisteringIdleBodyDoesNotSpinALoopThatHasNothingElseToDo() async {
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
        // One iteration the test gives the loop: the body has run by the time that iteration's idle phase ends.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.post { loop.whenIdle { done.resume() } }
        }
        let settled = runs.withLock { $0 }
        #expect(settled >= 1)
        // Now nothing wakes the loop. The guest loop runs in pumps queued on the main queue, a FIFO, so a loop that
        // spun would have a pump queued ahead of each of these hops and run the body once per hop; a loop that blocks
        // runs it no more. (A margin for other suites' work on the main queue; a spin adds one run per hop.)
        for _ in 0..<200 { await MainActor.run {} }
        let after = runs.withLock { $0 }
        #expect(after - settled <= 5, "the loop spun: \(after - settled) idle runs while nothing woke it")
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
