import Foundation
import MainlineLoop
import MainlineTesting
import Testing

/// The one rule every stepping call follows at its bound: work that other threads or tasks keep placing is never
/// misuse — the call just returns with it still due — and only a loop whose own callbacks keep it busy on every
/// iteration is reported as `.loopNeverIdle`.
@MainActor
@Suite("TestLoop stepping: other threads' work is not misuse")
struct TestLoopSteppingRuleTests {
    @MainActor final class Count { var received = 0 }

    /// Posts `count` bodies from another thread, each counting itself in `into`.
    func postFromAnotherThread(_ count: Int, to loop: TestLoop, into counter: Count) async {
        await Task.detached {
            for _ in 0..<count { loop.post { counter.received += 1 } }
        }.value
    }

    /// A body that posts itself again every time it runs, `times` times in all (forever when `nil`).
    func repostItself(on loop: TestLoop, counter: Count, times: Int? = nil) {
        counter.received += 1
        if let times, counter.received >= times { return }
        loop.post { self.repostItself(on: loop, counter: counter, times: times) }
    }

    @Test func runUntilIdleEndsAtItsBoundWithoutAReportWhenTheWorkCameFromAnotherThread() async {
        // One post per iteration and 20 posts from a worker: busy for 20 iterations, past a bound of 5.
        let loop = TestLoop(budgets: LoopBudgets(postsPerIteration: 1))
        let counter = Count()
        await postFromAnotherThread(20, to: loop, into: counter)
        let diagnostics = DiagnosticsRecorder()
        let iterations = diagnostics.record { loop.runUntilIdle(maxIterations: 5) }
        #expect(iterations == 5)
        #expect(counter.received == 5)
        #expect(diagnostics.kinds.isEmpty, "\(diagnostics.diagnostics)")
        #expect(loop.hasPendingWork, "the rest is still due: the call returned, it did not drop anything")
        diagnostics.record { loop.runUntilIdle() }
        #expect(counter.received == 20)
        #expect(diagnostics.kinds.isEmpty)
    }

    @Test func runUntilIdleReportsAJobThatPostsItselfOnEveryIteration() {
        let loop = TestLoop()
        let counter = Count()
        loop.post { self.repostItself(on: loop, counter: counter) }
        let diagnostics = DiagnosticsRecorder()
        let iterations = diagnostics.record { loop.runUntilIdle(maxIterations: 5) }
        #expect(iterations == 5)
        #expect(diagnostics.kinds == [.loopNeverIdle])
        #expect(diagnostics.diagnostics.first?.message.contains("posts made by the loop's own callbacks") == true)
    }

    @Test func aJobThatPostsItselfAFiniteNumberOfTimesIsNotReported() {
        let loop = TestLoop()
        let counter = Count()
        loop.post { self.repostItself(on: loop, counter: counter, times: 4) }
        let diagnostics = DiagnosticsRecorder()
        let iterations = diagnostics.record { loop.runUntilIdle(maxIterations: 5) }
        #expect(iterations == 4)
        #expect(diagnostics.kinds.isEmpty)
        #expect(!loop.hasPendingWork)
    }

    @Test func aSelfRepostingJobBehindWorkFromAnotherThreadIsReportedOnceThatWorkHasRun() async {
        // 40 posts from a worker ahead of a job that posts itself, two posts per iteration. While the worker's posts
        // run, the iterations are not the loop's own doing, and calls end at their bound unreported; once they have
        // run, the job keeps the loop busy by itself on every iteration, and the next call reports it.
        let loop = TestLoop(budgets: LoopBudgets(postsPerIteration: 2))
        let flood = Count()
        await postFromAnotherThread(40, to: loop, into: flood)
        let counter = Count()
        loop.post { self.repostItself(on: loop, counter: counter) }
        let diagnostics = DiagnosticsRecorder()
        var calls = 0
        while flood.received < 40 {
            diagnostics.record { loop.runUntilIdle(maxIterations: 5) }
            calls += 1
        }
        #expect(calls == 4, "20 iterations of the worker's posts, 5 per call")
        #expect(diagnostics.kinds.isEmpty, "\(diagnostics.diagnostics.map(\.message))")
        diagnostics.record { loop.runUntilIdle(maxIterations: 5) }
        #expect(diagnostics.kinds == [.loopNeverIdle])
    }

    @Test func advanceReportsATimerReArmedAtTheCurrentTimeButNotATimerChainThatEnds() {
        let loop = TestLoop()
        var firings = 0
        func again(until last: Int?) {
            loop.schedule(after: .zero) {
                firings += 1
                if let last, firings >= last { return }
                again(until: last)
            }
        }
        again(until: 3)
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record { loop.advance(by: .seconds(1)) }
        #expect(firings == 3)
        #expect(diagnostics.kinds.isEmpty)

        firings = 0
        again(until: nil)
        diagnostics.record { loop.advance(by: .seconds(1)) }
        #expect(
            diagnostics.kinds == [.loopNeverIdle],
            "reported once, and the call returned instead of stepping forever"
        )
        #expect(diagnostics.diagnostics.first?.message.contains("advance(to:)") == true)
        #expect(diagnostics.diagnostics.first?.message.contains("a timer due at") == true)
        #expect(loop.now == .zero + .seconds(1), "it stopped at the deadline that kept the loop busy")
    }

    @Test func asyncAdvanceStopsAtATimerReArmedAtTheCurrentTimeAndReportsIt() async {
        let loop = TestLoop()
        func again() { loop.schedule(after: .seconds(2)) { forever() } }
        func forever() { loop.schedule(after: .zero) { forever() } }
        again()
        let diagnostics = DiagnosticsRecorder()
        await diagnostics.record { await loop.advance(by: .seconds(5)) }
        #expect(diagnostics.kinds == [.loopNeverIdle])
        #expect(loop.now == .zero + .seconds(2))
    }

    @Test func asyncRunUntilIdleEndsAtItsBoundWithoutAReportWhileAThreadKeepsPosting() async {
        // A producer thread keeps posting until told to stop: the loop is never idle, and it is not the loop's fault.
        let loop = TestLoop(budgets: LoopBudgets(postsPerIteration: 1))
        let stop = _Locked(false)
        let producer = Thread { while !stop.withLock({ $0 }) { loop.post {} } }
        producer.start()
        defer { stop.withLock { $0 = true } }
        while loop.postsRun == 0 && !loop.hasPendingWork { await Task.yield() }
        let diagnostics = DiagnosticsRecorder()
        let iterations = await diagnostics.record { await loop.runUntilIdle(maxIterations: 3) }
        #expect(iterations >= 3)
        #expect(diagnostics.kinds.isEmpty, "\(diagnostics.diagnostics)")
    }

    @Test func runUntilReportsOnceAndReturnsWhenTheLoopKeepsItselfBusy() async {
        let loop = TestLoop()
        let counter = Count()
        loop.post { self.repostItself(on: loop, counter: counter) }
        let diagnostics = DiagnosticsRecorder()
        let held = await diagnostics.record { await loop.run(until: { false }, attempts: 3) }
        #expect(held == false)
        #expect(diagnostics.kinds == [.loopNeverIdle], "once, not once per attempt")
        #expect(counter.received == 10_000, "one attempt's iterations, then it returned")
    }
}
