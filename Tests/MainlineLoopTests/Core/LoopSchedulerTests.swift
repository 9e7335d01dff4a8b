import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// The scheduling core every loop runs (`_LoopScheduler`): its post phase, the one drain-deadline rule and the
/// counters a snapshot reports, driven by hand with a clock the test moves — the rule `MainLoop`, `TestLoop` and
/// `EventLoop` share, checked once where it is written.
@Suite("The scheduling core")
struct LoopSchedulerTests {
    /// A clock the jobs move: each job takes one second.
    final class Clock: @unchecked Sendable {
        // @unchecked Sendable: used on the test's thread only (the scheduler runs jobs on the caller's thread).
        var now = LoopInstant(nanoseconds: 0)
    }

    func makeScheduler(postsPerIteration: Int = 64) -> _LoopScheduler {
        _LoopScheduler(budgets: LoopBudgets(postsPerIteration: postsPerIteration), loopName: "test")
    }

    @Test func aPostPhaseRunsOneBudgetOfOneSnapshotInOrderAndCountsIt() {
        let scheduler = makeScheduler(postsPerIteration: 3)
        let ran = JobRecorder()
        for index in 0..<5 { _ = scheduler.posts.enqueue { ran.append(index) } }
        #expect(scheduler.runPosts(limit: 3, now: { .init(nanoseconds: 0) }) == 3)
        #expect(scheduler.afterPosts(shutsDown: .whenDrained) == .moreWaiting)
        #expect(ran.values == [0, 1, 2])
        #expect(scheduler.pendingPosts(onLoop: true) == 2)
        #expect(scheduler.runPosts(limit: 3, now: { .init(nanoseconds: 0) }) == 2)
        #expect(scheduler.afterPosts(shutsDown: .whenDrained) == .idle)
        #expect(ran.values == [0, 1, 2, 3, 4])
        #expect(scheduler.counters().postsRun == 5)
    }

    @Test func withADrainDeadlineAJobStartsOnlyBeforeItEvenInTheFirstPhaseAfterTheClose() {
        let scheduler = makeScheduler()
        let clock = Clock()
        let ran = JobRecorder()
        for index in 0..<5 {
            _ = scheduler.posts.enqueue {
                ran.append(index)
                clock.now = clock.now + .seconds(1)
            }
        }
        var discarded: [Int] = []
        scheduler.onDiscard = { discarded.append($0) }
        _ = scheduler.posts.close(drainDeadline: .at(LoopInstant(nanoseconds: 0) + .milliseconds(2_500)))

        // Starts at 0 s, 1 s and 2 s; at 3 s the deadline has passed: the two left are released, reported once.
        #expect(scheduler.runPosts(limit: 64, now: { clock.now }) == 3)
        #expect(ran.values == [0, 1, 2])
        #expect(discarded == [2])
        #expect(scheduler.counters().postsDiscarded == 2)
        #expect(scheduler.afterPosts(shutsDown: .whenDrained) == .closed)
    }

    @Test func aDeadlineAfterShutdownBeginsIsFixedByTheFirstPhaseAfterTheCloseAndByNoLaterOne() {
        let scheduler = makeScheduler(postsPerIteration: 1)
        let clock = Clock()
        clock.now = LoopInstant(nanoseconds: 0) + .seconds(100)
        let ran = JobRecorder()
        for index in 0..<4 {
            _ = scheduler.posts.enqueue {
                ran.append(index)
                clock.now = clock.now + .seconds(1)
            }
        }
        // The first phase takes all four as its batch and runs one (the budget): the queue is still open.
        #expect(scheduler.runPosts(limit: 1, now: { clock.now }) == 1)  // job 0 at 100 s
        #expect(scheduler.afterPosts(shutsDown: .whenDrained) == .moreWaiting)
        _ = scheduler.posts.close(drainDeadline: .afterShutdownBegins(.milliseconds(1_500)))

        // The next phase sees the close although its batch was taken before it, and fixes the deadline: 102.5 s.
        #expect(scheduler.runPosts(limit: 1, now: { clock.now }) == 1)  // job 1 at 101 s
        #expect(scheduler.afterPosts(shutsDown: .whenDrained) == .moreWaiting)
        #expect(scheduler.runPosts(limit: 1, now: { clock.now }) == 1)  // job 2 at 102 s
        #expect(scheduler.afterPosts(shutsDown: .whenDrained) == .moreWaiting)
        // At 103 s: past 102.5 s (fixed again by this phase it would be 104.5 s and let job 3 start).
        #expect(scheduler.runPosts(limit: 1, now: { clock.now }) == 0)
        #expect(ran.values == [0, 1, 2])
        #expect(scheduler.counters().postsDiscarded == 1)
        #expect(scheduler.afterPosts(shutsDown: .whenDrained) == .closed)
    }

    @Test func theIdlePhaseIsDueOnlyWhenNothingElseIs() {
        let scheduler = makeScheduler()
        let now = LoopInstant(nanoseconds: 10)
        #expect(!scheduler.idlePhaseIsDue(otherWork: false, nextDeadline: nil, now: now), "no body registered")
        let registration = scheduler.idle.add(.loopThread {}, site: LoopSite(), wakes: false).0
        #expect(scheduler.idlePhaseIsDue(otherWork: false, nextDeadline: nil, now: now))
        #expect(!scheduler.idlePhaseIsDue(otherWork: true, nextDeadline: nil, now: now), "settle pending")
        #expect(!scheduler.idlePhaseIsDue(otherWork: false, nextDeadline: now, now: now), "a timer is due")
        #expect(scheduler.idlePhaseIsDue(otherWork: false, nextDeadline: LoopInstant(nanoseconds: 11), now: now))
        _ = scheduler.posts.enqueue {}
        #expect(!scheduler.idlePhaseIsDue(otherWork: false, nextDeadline: nil, now: now), "a post waits")
        _ = scheduler.runPosts(limit: 64, now: { now })
        _ = scheduler.afterPosts(shutsDown: .whenDrained)
        #expect(scheduler.runIdle { _, _ in } == 1)
        #expect(!registration.isActive)
    }
}

/// Values appended by jobs, in order.
final class JobRecorder: @unchecked Sendable {
    // @unchecked Sendable: the scheduler runs jobs on the test's own thread.
    private(set) var values: [Int] = []
    func append(_ value: Int) { values.append(value) }
}
