import MainlineLoop
import MainlineTesting
import Testing

@MainActor
@Suite("TestLoop snapshots")
struct TestLoopSnapshotTests {
    let loop = TestLoop()

    @Test func aFreshLoopIsRunningWaitingAtIterationOneWithNothingPending() {
        #expect(
            loop.snapshot()
                == LoopSnapshot(loop: "TestLoop", state: .running, now: .zero, phase: .waiting)
        )
        #expect(loop.snapshot().iteration == 1)
    }

    @Test func timersAreListedSoonestFirstWithLabelsIntervalsAndFirings() {
        let expiry = loop.schedule(after: .seconds(3), label: "session-expiry") {}
        let plain = loop.schedule(after: .seconds(2)) {}
        let heartbeat = loop.scheduleRepeating(every: .seconds(1), label: "heartbeat") { _ in }
        let cancelled = loop.schedule(after: .milliseconds(500), label: "cancelled") {}
        cancelled.cancel()
        loop.advance(by: .milliseconds(1_750))

        let snapshot = loop.snapshot()
        #expect(
            snapshot.timers == [
                // Equal deadlines in firing order: the heartbeat was re-inserted when it fired, after the other one.
                LoopSnapshot.Timer(label: nil, site: plain.site, deadline: .zero + .seconds(2)),
                LoopSnapshot.Timer(
                    label: "heartbeat",
                    site: heartbeat.site,
                    deadline: .zero + .seconds(2),
                    interval: .seconds(1),
                    firings: 1
                ),
                LoopSnapshot.Timer(label: "session-expiry", site: expiry.site, deadline: .zero + .seconds(3)),
            ]
        )
        // Each timer's site is the line that scheduled it.
        #expect(plain.site.fileID == "MainlineTestingTests/TestLoopSnapshotTests.swift")
        #expect(heartbeat.site.line == plain.site.line + 1 && expiry.site.line == plain.site.line - 1)
        #expect(snapshot.counters.timersFired == 1)
        #expect(snapshot.now == .zero + .milliseconds(1_750))
    }

    @Test func equalDeadlinesAreListedInTheOrderTheyFire() {
        loop.schedule(after: .seconds(1), label: "first") {}
        loop.schedule(after: .seconds(1), label: "second") {}
        loop.schedule(after: .seconds(1), label: "third") {}
        #expect(loop.snapshot().timers.map(\.label) == ["first", "second", "third"])
    }

    @Test func aSkippingRepeatingTimerShowsItsSkippedFirings() {
        loop.scheduleRepeating(every: .seconds(1), label: "tick") { _ in }
        loop.simulateBusy(for: .milliseconds(3_500))
        loop.runIteration()
        let timer = loop.snapshot().timers.first
        #expect(timer?.firings == 1)
        #expect(timer?.skippedFirings == 2)
        #expect(timer?.deadline == .zero + .seconds(4))
    }

    @Test func pendingPostsAndSettleNotificationsAreCountedAndRunOnesMoveToTheCounters() {
        var delivered = 0
        let first = SettleNotification { delivered += 1 }
        let second = SettleNotification(height: 1) { delivered += 1 }
        let withdrawn = SettleNotification {}
        loop.requestSettle(first)
        loop.requestSettle(second)
        loop.requestSettle(withdrawn)
        withdrawn.cancel()
        for _ in 0..<3 { loop.post {} }

        var snapshot = loop.snapshot()
        #expect(snapshot.pendingPosts == 3)
        #expect(snapshot.pendingSettleNotifications == 2)
        #expect(snapshot.counters == LoopSnapshot.Counters())

        loop.runUntilIdle()
        snapshot = loop.snapshot()
        #expect(delivered == 2)
        #expect(snapshot.pendingPosts == 0)
        #expect(snapshot.pendingSettleNotifications == 0)
        #expect(snapshot.counters == LoopSnapshot.Counters(iterations: 1, postsRun: 3, settleDeliveries: 2))
        #expect(snapshot.iteration == 2)
        #expect(snapshot.phase == .waiting)
    }

    @Test func thePhaseIsThatOfTheCodeTakingTheSnapshot() {
        var phases: [LoopSnapshot.Phase] = []
        var iterations: [Int] = []
        loop.schedule(after: .zero) {
            phases.append(loop.snapshot().phase)
            iterations.append(loop.snapshot().iteration)
        }
        loop.post {
            phases.append(loop.snapshot().phase)
            iterations.append(loop.snapshot().iteration)
        }
        loop.requestSettle(
            SettleNotification {
                phases.append(loop.snapshot().phase)
                iterations.append(loop.snapshot().iteration)
            }
        )
        loop.onSignal(.sigusr1) { _ in phases.append(loop.snapshot().phase) }
        loop.raise(.sigusr1)
        loop.runIteration()
        #expect(phases == [.timers, .posts, .posts, .settle])
        #expect(iterations == [1, 1, 1])
        #expect(loop.snapshot().phase == .waiting)
    }

    @Test func aPostWaitingBehindTheRunningOneIsPendingTheRunningOneIsNot() {
        var seen: [Int] = []
        loop.post { seen.append(loop.snapshot().pendingPosts) }
        loop.post { seen.append(loop.snapshot().pendingPosts) }
        loop.runIteration()
        #expect(seen == [1, 0])
    }

    @Test func rejectedAndDiscardedPostsAreCounted() {
        loop.budgets.maxPendingPosts = 2
        #expect(loop.tryPost {} == .accepted)
        #expect(loop.tryPost {} == .accepted)
        #expect(loop.tryPost {} == .full)
        loop.stop(drainDeadline: .zero)
        #expect(loop.snapshot().state == .stopping)
        loop.runIteration()

        let snapshot = loop.snapshot()
        #expect(snapshot.state == .stopped)
        #expect(snapshot.phase == .stopped)
        #expect(snapshot.counters.postsRejected == 1)
        #expect(snapshot.counters.postsDiscarded == 2)
        #expect(snapshot.counters.postsRun == 0)
        #expect(snapshot.pendingPosts == 0)
    }

    @Test func aStoppedLoopListsNoTimers() {
        loop.scheduleRepeating(every: .seconds(1), label: "heartbeat") { _ in }
        loop.stop()
        loop.runIteration()
        #expect(loop.snapshot().timers.isEmpty)
        #expect(loop.snapshot().state == .stopped)
    }

    @Test func theDescriptionShowsOneLinePerTimerRelativeToNow() {
        let line = #line + 1
        loop.scheduleRepeating(every: .seconds(1), label: "heartbeat") { _ in }
        loop.schedule(after: .milliseconds(31_500), label: "session-expiry") {}
        loop.schedule(after: .seconds(2)) {}
        loop.post {}
        loop.advance(by: .milliseconds(1_750))
        loop.post {}
        loop.requestSettle(SettleNotification {})
        let file = "MainlineTestingTests/TestLoopSnapshotTests.swift"

        #expect(
            loop.snapshot().description == """
                TestLoop: running, iteration 3 (waiting), now 1.750 s
                  posts: 1 pending, 1 run, 0 rejected, 0 discarded
                    1 from \(file):\(line + 5)
                  settle: 1 pending, 0 delivered
                  timers: 3 scheduled, 1 fired
                    in 0.250 s  at \(file):\(line + 2)
                    in 0.250 s  heartbeat  every 1.000 s, fired 1  at \(file):\(line)
                    in 29.750 s  session-expiry  at \(file):\(line + 1)
                """
        )
    }

    @Test func waitingPostsAreCountedByTheLineThatPostedThemMostFrequentFirst() {
        let line = #line + 1
        loop.post {}
        for _ in 0..<3 { loop.post {} }
        loop.post(label: "flush") {}
        let bySite = loop.snapshot().pendingPostsBySite
        #expect(bySite.map(\.count) == [3, 1, 1])
        #expect(bySite.map(\.site.line) == [line + 1, line, line + 2])
        #expect(bySite.last?.site.label == "flush")
        loop.runUntilIdle()
        #expect(loop.snapshot().pendingPostsBySite.isEmpty)
    }

    @Test func theReadmesSignalHandlerLogsTheSnapshot() {
        var log: [String] = []
        let line = #line + 1
        loop.scheduleRepeating(every: .seconds(1), label: "heartbeat") { _ in }
        loop.onSignal(.sigusr1) { _ in log.append("\(loop.snapshot())") }
        loop.advance(by: .milliseconds(1_750))
        loop.raise(.sigusr1)
        loop.runUntilIdle()
        #expect(
            log == [
                """
                TestLoop: running, iteration 2 (posts), now 1.750 s
                  posts: 0 pending, 0 run, 0 rejected, 0 discarded
                  settle: 0 pending, 0 delivered
                  timers: 1 scheduled, 1 fired
                    in 0.250 s  heartbeat  every 1.000 s, fired 1  at MainlineTestingTests/TestLoopSnapshotTests.swift:\(line)
                """
            ]
        )
    }

    @Test func theAsyncSnapshotFromAnotherTaskSeesWhatTheMainActorSees() async {
        loop.schedule(after: .seconds(1), label: "timeout") {}
        let snapshot = await Task.detached { [loop] in await loop.snapshot() }.value
        #expect(snapshot == loop.snapshot())
        #expect(snapshot.timers.map(\.label) == ["timeout"])
    }

    @Test func postsRunCountsWhatShutdownRanToo() {
        loop.post {}
        loop.runIteration()
        loop.post {}
        loop.post {}
        loop.stop()
        loop.runIteration()
        #expect(loop.postsRun == 3)
        #expect(loop.snapshot().counters.postsRun == 3)
    }
}
