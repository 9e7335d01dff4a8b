import Dispatch
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

extension GuestModeTests {
    @Test func aSnapshotOfAnIdleLoopSaysIdleAndLeavesItIdle() async {
        let loop = MainLoop()
        let snapshot = await loop.snapshot()
        #expect(snapshot.state == .idle)
        #expect(snapshot.phase == .waiting)
        #expect(loop.state == .idle)
        loop.stop()
        await loop.waitUntilStopped()
    }

    @Test func aSnapshotOnTheLoopShowsGuestStateThePostPhaseWaitingPostsAndLabelledTimers() async {
        let loop = MainLoop()
        loop.attachAsGuest()
        let (snapshot, scheduledAt): (LoopSnapshot, LoopInstant) = await withCheckedContinuation { done in
            loop.post {
                let scheduledAt = loop.now
                loop.schedule(after: .seconds(60), label: "far") {}
                loop.scheduleRepeating(every: .seconds(30), label: "tick") { _ in }
                loop.schedule(after: .seconds(45)) {}
                loop.post {}  // waits for the next iteration
                loop.requestSettle(SettleNotification {})
                done.resume(returning: (loop.snapshot(), scheduledAt))
            }
        }
        #expect(snapshot.loop == "MainLoop")
        #expect(snapshot.state == .guest)
        #expect(snapshot.phase == .posts)
        #expect(snapshot.pendingPosts == 1)
        #expect(snapshot.pendingSettleNotifications == 1)
        #expect(snapshot.timers.map(\.label) == ["tick", nil, "far"])
        #expect(snapshot.timers.map(\.interval) == [.seconds(30), nil, nil])
        // Real time: each deadline is its delay after a clock read between `scheduledAt` and the snapshot's `now`.
        for (timer, delay) in zip(snapshot.timers, [30, 45, 60]) {
            #expect(timer.deadline >= scheduledAt + .seconds(delay))
            #expect(timer.deadline <= snapshot.now + .seconds(delay))
        }
        #expect(snapshot.description.contains("  tick  every 30.000 s, fired 0"))

        // A shutdown hook runs after the drain and settle: what the first snapshot saw pending has run.
        let inHook = _Locked<LoopSnapshot?>(nil)
        await MainActor.run {
            _ = loop.onShutdown { inHook.withLock { $0 = loop.snapshot() } }
        }
        loop.stop()
        await loop.waitUntilStopped()
        let hook = inHook.withLock { $0 }
        #expect(hook?.phase == .stopping)
        #expect(hook?.state == .stopping)
        #expect(hook?.pendingPosts == 0)
        #expect(hook?.pendingSettleNotifications == 0)

        // From this test, off the main actor: `await` hops onto the main actor, which answers after the loop stopped.
        let stopped = await loop.snapshot()
        #expect(stopped.state == .stopped)
        #expect(stopped.phase == .stopped)
        #expect(stopped.timers.isEmpty)
        #expect(stopped.pendingPosts == 0)
        #expect(stopped.counters.postsRun == 2)
        #expect(stopped.counters.settleDeliveries == 1)
        #expect(stopped.counters.iterations >= 1)
    }
}
