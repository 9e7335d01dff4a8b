import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// The `Loop.schedule(at:_:)` default, for conformers outside the package: it schedules after the time left.
@MainActor
@Suite("Loop.schedule(at:) default")
struct LoopScheduleAtDefaultTests {
    @Test func theDefaultSchedulesAfterTheTimeLeftUntilTheDeadline() {
        let loop = ExternalLoop(now: .zero + .seconds(10))
        let task = loop.schedule(at: .zero + .seconds(12)) {}
        loop.schedule(at: .zero + .seconds(3)) {}  // in the past: a negative delay, which counts as zero
        #expect(loop.scheduledDelays == [.seconds(2), .seconds(-7)])
        #expect(task.isScheduled)
    }
}
