import Dispatch
import MainlineInspection
import MainlineLoop
import MetricsTestKit
import Testing

extension LoopWatchdogTests {
    /// Spins for `microseconds` of real time: work the flight recorder counts as slow.
    @inline(never)
    static func spin(microseconds: UInt64) {
        let end = DispatchTime.now().uptimeNanoseconds + microseconds * 1_000
        while DispatchTime.now().uptimeNanoseconds < end {}
    }

    @Test func aStallReportCarriesWhatTheRecorderSawJustBeforeIt() async throws {
        let loop = MainLoop()
        let reports = Reports()
        await MainActor.run {
            loop.instrument(LoopInstrumentation(watchdog: reports.watchdog()))
        }
        let slowLine = #line + 1
        loop.post { Self.spin(microseconds: 3_000) }
        let stallLine = #line + 2
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.post {
                // On a busy machine the 3 ms job may be reported first (the threshold is 20 ms): hold the loop until
                // this job's own stall is reported.
                repeat {
                    reports.stallReported.wait()
                } while !reports.stalls.withLock { $0.contains { $0.site?.line == stallLine } }
                done.resume()
            }
        }
        loop.stop()
        await loop.waitUntilStopped()

        let stall = try #require(reports.stalls.withLock { $0.first { $0.site?.line == stallLine } })
        #expect(stall.site?.line == stallLine)
        #expect(stall.label == "post")
        #expect(stall.startNanoseconds > 0 && stall.startNanoseconds <= DispatchTime.now().uptimeNanoseconds)
        let before = stall.lastEvents.compactMap { event -> LoopFlightRecorder.SlowWork? in
            if case .slowWork(let work) = event.kind { work } else { nil }
        }
        #expect(before.contains { $0.site?.line == slowLine && $0.duration >= .milliseconds(3) })
        #expect(stall.lastEvents.allSatisfy { $0.nanoseconds <= stall.startNanoseconds + 1_000_000_000 })
    }
}
