import MainlineLoop
import MainlineTesting
import Testing

@MainActor
@Suite("TestLoop timers")
struct TestLoopTimerTests {
    let loop = TestLoop()
    var fired: [String] = []

    @Test func timersFireInDeadlineOrderAtTheirDeadlines() {
        var log: [(String, LoopInstant)] = []
        loop.schedule(after: .milliseconds(30)) { log.append(("30", loop.now)) }
        loop.schedule(after: .milliseconds(10)) { log.append(("10", loop.now)) }
        loop.schedule(after: .milliseconds(20)) { log.append(("20", loop.now)) }
        loop.advance(by: .milliseconds(25))
        #expect(log.map(\.0) == ["10", "20"])
        #expect(log.map(\.1) == [.zero + .milliseconds(10), .zero + .milliseconds(20)])
        #expect(loop.now == .zero + .milliseconds(25))
        loop.advance(by: .milliseconds(5))
        #expect(log.map(\.0) == ["10", "20", "30"])
        #expect(!loop.hasPendingWork)
    }

    @Test func equalDeadlinesFireInSchedulingOrder() {
        var log: [Int] = []
        for index in 0..<10 { loop.schedule(after: .seconds(1)) { log.append(index) } }
        loop.advance(by: .seconds(1))
        #expect(log == Array(0..<10))
    }

    @Test func nothingFiresBeforeItsDeadline() {
        var count = 0
        loop.schedule(after: .milliseconds(100)) { count += 1 }
        loop.advance(by: .milliseconds(99))
        #expect(count == 0)
        loop.advance(by: .milliseconds(1))
        #expect(count == 1)
    }

    @Test func aZeroDelayNeverRunsSynchronouslyNorInTheTimerPhaseThatScheduledIt() {
        var log: [String] = []
        loop.schedule(after: .zero) {
            log.append("outer")
            loop.schedule(after: .zero) { log.append("inner") }
            log.append("outer done")
        }
        #expect(log.isEmpty)
        loop.runIteration()
        #expect(log == ["outer", "outer done"])
        loop.runIteration()
        #expect(log == ["outer", "outer done", "inner"])
    }

    @Test func aNegativeDelayCountsAsZero() {
        var count = 0
        let task = loop.schedule(after: .seconds(-5)) { count += 1 }
        #expect(task.deadline == loop.now)
        loop.runUntilIdle()
        #expect(count == 1)
    }

    @Test func cancelledTimersDoNotFireAndCancelIsIdempotent() {
        var count = 0
        let task = loop.schedule(after: .seconds(1)) { count += 1 }
        task.cancel()
        task.cancel()
        #expect(task.isCancelled)
        #expect(!task.isScheduled)
        loop.advance(by: .seconds(2))
        #expect(count == 0)
        #expect(loop.scheduledTimerCount == 0)
    }

    @Test func cancellingAnotherTimerDueInTheSamePhaseStopsIt() {
        var log: [String] = []
        var second: ScheduledTask?
        loop.schedule(after: .seconds(1)) {
            log.append("first")
            second?.cancel()
        }
        second = loop.schedule(after: .seconds(1)) { log.append("second") }
        loop.advance(by: .seconds(1))
        #expect(log == ["first"])
    }

    @Test func cancellingAFiredOneShotTimerDoesNothing() {
        let task = loop.schedule(after: .seconds(1)) {}
        loop.advance(by: .seconds(1))
        task.cancel()
        #expect(!task.isCancelled)
        #expect(task.firings == 1)
    }

    @Test func cancelReleasesTheCallbackAndWhatItCaptured() {
        final class Captured {}
        weak var weakCaptured: Captured?
        let task: ScheduledTask
        do {
            let captured = Captured()
            weakCaptured = captured
            task = loop.schedule(after: .seconds(1)) { _ = captured }
        }
        #expect(weakCaptured != nil)
        task.cancel()
        #expect(weakCaptured == nil)
    }

    @Test func repeatingTimersFireAtAFixedRate() {
        var times: [LoopInstant] = []
        let task = loop.scheduleRepeating(every: .milliseconds(100)) { _ in times.append(loop.now) }
        loop.advance(by: .milliseconds(350))
        #expect(times == [100, 200, 300].map { .zero + .milliseconds($0) })
        #expect(task.firings == 3)
        #expect(task.deadline == .zero + .milliseconds(400))
        #expect(task.skippedFirings == 0)
    }

    @Test func aRepeatingTimerCanCancelItselfFromItsCallback() {
        var count = 0
        loop.scheduleRepeating(every: .seconds(1)) { task in
            count += 1
            if count == 3 { task.cancel() }
        }
        loop.advance(by: .seconds(10))
        #expect(count == 3)
        #expect(loop.scheduledTimerCount == 0)
        #expect(!loop.hasPendingWork)
    }

    @Test func lateRepeatingFiringsAreSkippedAndCountedNotRunBackToBack() {
        var times: [LoopInstant] = []
        let task = loop.scheduleRepeating(every: .milliseconds(100)) { _ in times.append(loop.now) }
        // A callback at 150 ms keeps the loop busy for 300 ms: the firings due at 200, 300 and 400 ms are late.
        loop.schedule(after: .milliseconds(150)) { loop.simulateBusy(for: .milliseconds(300)) }
        loop.advance(by: .milliseconds(520))
        // 200 fires once, late, at 450; 300 and 400 are skipped; the fixed rate resumes at 500.
        #expect(times == [100, 450, 500].map { .zero + .milliseconds($0) })
        #expect(task.skippedFirings == 2)
        #expect(task.firings == 3)
        #expect(task.deadline == .zero + .milliseconds(600))
        task.cancel()
    }

    @Test func aOneShotTimerReachedLateFiresOnceAtTheLateTime() {
        var times: [LoopInstant] = []
        loop.schedule(after: .milliseconds(100)) { times.append(loop.now) }
        loop.simulateBusy(for: .milliseconds(250))
        loop.runIteration()
        #expect(times == [.zero + .milliseconds(250)])
    }

    @Test func timersDueAtTheSameLateStepStillFireInDeadlineOrder() {
        var log: [String] = []
        loop.schedule(after: .milliseconds(30)) { log.append("30") }
        loop.schedule(after: .milliseconds(10)) { log.append("10") }
        loop.schedule(after: .milliseconds(20)) { log.append("20") }
        loop.simulateBusy(for: .milliseconds(50))
        loop.runIteration()
        #expect(log == ["10", "20", "30"])
    }

    @Test func movingTimeBackwardsIsReportedAndTimeStays() {
        let diagnostics = DiagnosticsRecorder()
        loop.advance(by: .seconds(2))
        diagnostics.record {
            loop.advance(to: .zero + .seconds(1))
            loop.simulateBusy(for: .seconds(-1))
        }
        #expect(diagnostics.kinds == [.timeTravel, .timeTravel])
        #expect(loop.now == .zero + .seconds(2))
    }

    @Test func aTimerScheduledFromATimerCallbackUsesTheCallbacksDeadlineAsNow() {
        var times: [LoopInstant] = []
        loop.schedule(after: .milliseconds(10)) {
            loop.schedule(after: .milliseconds(5)) { times.append(loop.now) }
        }
        loop.advance(by: .seconds(1))
        #expect(times == [.zero + .milliseconds(15)])
    }

    @Test func aNonPositiveRepeatingIntervalIsReportedAndClamped() {
        let diagnostics = DiagnosticsRecorder()
        let task = diagnostics.record { loop.scheduleRepeating(every: .zero) { _ in } }
        #expect(diagnostics.kinds == [.repeatingTimerInterval])
        #expect(task.interval == .nanoseconds(1))
        task.cancel()
    }

    @Test func manyCancelledTimersAreCompactedAway() {
        var tasks = (0..<1_000).map { index in loop.schedule(after: .seconds(Int64(index + 1))) {} }
        for task in tasks.dropLast() { task.cancel() }
        #expect(loop.scheduledTimerCount == 1)
        #expect(loop.nextDeadline == .zero + .seconds(1_000))
        tasks.removeAll()
    }

    @Test func everyTaskIsFreedOnceNothingHoldsItFiredCancelledCompactedOrStillPendingWhenTheLoopGoes() {
        weak var fired: ScheduledTask?
        weak var cancelledAtTheTop: ScheduledTask?
        weak var compactedAway: ScheduledTask?
        weak var pendingAtTheEnd: ScheduledTask?
        do {
            let loop = TestLoop()
            let first = loop.schedule(after: .seconds(1)) {}
            let second = loop.schedule(after: .seconds(2)) {}
            var many = (0..<200).map { index in loop.schedule(after: .seconds(Int64(10 + index))) {} }
            let last = loop.schedule(after: .seconds(1_000)) {}
            fired = first
            cancelledAtTheTop = second
            compactedAway = many[0]
            pendingAtTheEnd = last
            second.cancel()
            for task in many { task.cancel() }  // more than half cancelled: the heap is compacted
            many.removeAll()
            loop.advance(by: .seconds(5))
            #expect(first.firings == 1)
            #expect(loop.scheduledTimerCount == 1)
        }
        #expect(fired == nil)
        #expect(cancelledAtTheTop == nil)
        #expect(compactedAway == nil)
        #expect(pendingAtTheEnd == nil, "a task still scheduled when its loop is freed must be freed with it")
    }
}
