import Dispatch
import Foundation
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

extension EventLoopTests {
    @Suite("EventLoop snapshots")
    struct SnapshotTests {
        @Test func aSnapshotFromAnotherThreadAnswersWhileACallbackBlocksTheLoop() async {
            let loop = EventLoop(name: "snap")
            let gate = DispatchSemaphore(value: 0)
            let held = DispatchSemaphore(value: 0)
            loop.post {
                held.signal()
                gate.wait()
            }
            held.wait()
            let before = loop.now
            loop.scheduleRepeating(every: .seconds(30)) { _ in }
            loop.schedule(after: .seconds(60)) {}
            loop.post {}
            loop.post {}

            let snapshot = loop.snapshot()
            #expect(snapshot.loop == "EventLoop(snap)")
            #expect(snapshot.state == .running)
            #expect(snapshot.phase == .posts)
            // The blocked post's batch counts until its phase ends (1), plus the two waiting in the inbox.
            #expect(snapshot.pendingPosts == 3)
            #expect(snapshot.counters.postsRun == 0)
            #expect(snapshot.timers.map(\.interval) == [.seconds(30), nil])
            #expect(snapshot.timers.map(\.label) == [nil, nil])
            #expect(snapshot.timers[0].deadline >= before + .seconds(30))
            #expect(snapshot.timers[0].deadline <= snapshot.now + .seconds(30))
            #expect(snapshot.pendingSettleNotifications == 0)

            gate.signal()
            loop.stop()
            #expect(loop.snapshot().state != .running)
            await loop.waitUntilStopped()
            let stopped = loop.snapshot()
            #expect(stopped.state == .stopped)
            #expect(stopped.phase == .stopped)
            #expect(stopped.pendingPosts == 0)
            #expect(stopped.timers.isEmpty)
            #expect(stopped.counters.postsRun == 3)
            #expect(stopped.counters.iterations >= 1)
        }

        @Test func theLoopsOwnCallbacksSeeTheirPhaseAndTheCountersOfFinishedPhases() async {
            let loop = EventLoop(name: "phases")
            let seen = _Locked<[LoopSnapshot]>([])
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                loop.schedule(after: .zero) {
                    seen.withLock { $0.append(loop.snapshot()) }
                    loop.post {
                        seen.withLock { $0.append(loop.snapshot()) }
                        done.resume()
                    }
                }
            }
            loop.stop()
            await loop.waitUntilStopped()
            let snapshots = seen.withLock { $0 }
            #expect(snapshots.map(\.phase) == [.timers, .posts])
            #expect(snapshots.map(\.counters.timersFired) == [0, 1])
            #expect(snapshots.map(\.counters.postsRun) == [0, 0])
            #expect(loop.snapshot().counters.timersFired == 1)
            #expect(loop.snapshot().counters.postsRun == 1)
        }

        @Test func rejectedAndDiscardedPostsAreCounted() async {
            let loop = EventLoop(name: "bounded", budgets: LoopBudgets(maxPendingPosts: 2))
            let gate = DispatchSemaphore(value: 0)
            let held = DispatchSemaphore(value: 0)
            loop.post {
                held.signal()
                gate.wait()
            }
            held.wait()
            #expect(loop.tryPost {} == .accepted)
            #expect(loop.tryPost {} == .full)
            loop.stop(drainDeadline: .zero)
            gate.signal()
            await loop.waitUntilStopped()
            let counters = loop.snapshot().counters
            #expect(counters.postsRejected == 1)
            #expect(counters.postsDiscarded == 1)
            #expect(counters.postsRun == 1)
        }
    }
}
