import MainlineInspectorSchema
import Testing

@testable import MainlineInspection
@testable import MainlineLoop
@testable import MainlineLoopCore

/// The ages and running times an inspector shows count from one clock read, made before the loop's state is read: a
/// job that began, or an event recorded, after that read is 0 ms old — never a negative difference wrapped around.
@Suite("Inspection ages")
struct InspectionAgeTests {
    /// 50 ms: how long a describer may wait for a loop's snapshot between its clock read and the recorder's.
    static let describerWait: UInt64 = 50_000_000

    @Test func aJobThatBeganAfterTheClockWasReadHasRunForZeroMilliseconds() throws {
        let recorder = LoopFlightRecorder(clock: { _MonotonicClock.nanoseconds() })
        let monitor = _StallMonitor(capture: _ThreadHandle.capturing)
        recorder.monitorForInspection = monitor
        let readBeforeTheJob = _MonotonicClock.nanoseconds() - Self.describerWait
        monitor.begin("post")

        var summary = LoopSummary(name: "main", kind: "MainLoop", state: "owner")
        recorder.fillInspectionSummary(&summary, now: readBeforeTheJob)
        let running = try #require(summary.running)
        #expect(running.forMs == 0)
        #expect(running.label == "post")
    }

    @Test func aSlowJobOrStallRecordedAfterTheClockWasReadIsZeroMillisecondsOld() {
        let now: UInt64 = 10_000_000_000
        let later = now + Self.describerWait
        let work = LoopFlightRecorder.SlowWork(
            kind: .post,
            site: LoopSite(label: "fetch"),
            duration: .milliseconds(3),
            runLength: 1,
            sitesInRun: 1
        )
        let slowest = LoopFlightRecorder.slowest(
            [LoopFlightRecorder.Event(nanoseconds: later, kind: .slowWork(work))],
            now: now,
            limit: 10
        )
        #expect(slowest.map(\.ageMs) == [0])

        let stall = LoopStall(label: "fetch", kind: .callback, duration: .milliseconds(120), startNanoseconds: later)
        #expect(LoopFlightRecorder.stallSummary(stall, now: now).ageMs == 0)
        let event = LoopFlightRecorder.Event(nanoseconds: later, kind: .stall(stall))
        #expect(LoopFlightRecorder.eventSummary(event, now: now).ageMs == 0)
    }

    @Test func anAgeBeforeTheClockReadIsTheDifferenceInMilliseconds() {
        #expect(LoopFlightRecorder.milliseconds(since: 1_000_000, now: 3_500_000) == 2.5)
        #expect(LoopFlightRecorder.milliseconds(since: 3_500_000, now: 3_500_000) == 0)
        #expect(LoopFlightRecorder.milliseconds(since: .max, now: 0) == 0)
    }
}
