import MetricsTestKit
import Testing

@testable import MainlineLoopCore

/// The one probe of a loop's phases (`_LoopProbe`): each phase boundary reads the loop's clock at most once, and the
/// progress counters, the flight recorder and the metrics all read that one measurement — checked on main-actor cores
/// driven by hand with a clock that counts its reads.
@MainActor
@Suite("The probe of a loop's phases")
struct LoopProbeTests {
    /// The loop's clock: it moves only when a job says so, and counts how often it is read.
    final class CountingClock: @unchecked Sendable {
        // @unchecked Sendable: read and moved on the test's thread only (the core runs its phases on the caller's).
        var now: UInt64 = 1_000_000_000
        var reads = 0

        func read() -> UInt64 {
            reads += 1
            return now
        }
    }

    /// A main-actor core on `clock`, with metrics into `metrics` when given.
    func makeCore(clock: CountingClock, metrics: TestMetrics?) -> _LoopCore {
        let core = _LoopCore(loopName: "probe") { clock.read() }
        // The clock the core reads itself (a drain deadline): the same one, so that any read of it is counted too.
        core.clock = { LoopInstant(nanoseconds: Int64(clock.read())) }
        if let metrics { core.instrument(LoopInstrumentation(metricsFactory: metrics)) }
        return core
    }

    /// Posts three jobs of 5 ms each, runs them in one post phase and ends the iteration.
    func runThreeJobs(on core: _LoopCore, clock: CountingClock) {
        for _ in 0..<3 {
            _ = core.posts.enqueue({ clock.now += 5_000_000 }, site: LoopSite(label: "probe test"))
        }
        #expect(core.runPosts() == 3)
        core.endIteration()
    }

    @Test func metricsAddNoClockReadToAPhaseAndReadTheSameTimeAsTheFlightRecorder() throws {
        let bare = CountingClock()
        runThreeJobs(on: makeCore(clock: bare, metrics: nil), clock: bare)
        let clock = CountingClock()
        let metrics = TestMetrics()
        let core = makeCore(clock: clock, metrics: metrics)
        runThreeJobs(on: core, clock: clock)

        #expect(bare.reads > 0)
        #expect(clock.reads == bare.reads, "the metrics read the probe's measurement, not the clock")
        // The one measurement, read by each sink: the metrics' busy time and post count, the recorder's interval
        // (written at the iteration's end: it spans 15 ms), the progress counters.
        #expect(try metrics.expectTimer(LoopMetricName.iterationDuration).values == [15_000_000])
        #expect(try metrics.expectCounter(LoopMetricName.posts).values == [3])
        let intervals = core.scheduler.recorder.events().compactMap { event -> LoopFlightRecorder.Interval? in
            if case .interval(let interval) = event.kind { interval } else { nil }
        }
        #expect(intervals.map(\.posts) == [.milliseconds(15)])
        #expect(intervals.map(\.postsRun) == [3])
        #expect(core.scheduler.progress.postsRun == 3)
    }

    @Test func phasesThatRunNoWorkReadNoClockEvenWithMetricsInstalled() {
        let clock = CountingClock()
        let core = makeCore(clock: clock, metrics: TestMetrics())
        core.runDueTimers(now: LoopInstant(nanoseconds: Int64(clock.now)))
        core.runPosts()
        core.runSettle()
        core.willWait()
        core.endIteration()
        #expect(clock.reads == 0)
    }

    @Test func aPostPhaseEndsAtTheRecordersLastReadingWhenItsLastWindowClosedOnItsLastJob() {
        let clock = CountingClock()
        let core = makeCore(clock: clock, metrics: nil)
        // One slow job: the recorder closes its window of one right after it, reading the clock; the phase's end
        // reads no second time.
        _ = core.posts.enqueue({ clock.now += 50_000_000 }, site: LoopSite(label: "probe test"))
        #expect(core.runPosts() == 1)
        #expect(clock.reads == 2)
    }
}
