import MainlineInspection
import MainlineLoop
import MetricsTestKit
import Testing

extension LoopWatchdogTests {
    @Test func theKeptReportOfAStallGetsTheTotalTheWatchdogLogsWhenItEnds() async throws {
        let loop = MainLoop()
        let log = RecordingLogHandler.Recorder()
        let reports = Reports()
        await MainActor.run {
            loop.instrument(
                LoopInstrumentation(metricsFactory: TestMetrics(), logger: log.logger(), watchdog: reports.watchdog())
            )
        }
        let whileItLasted = await withCheckedContinuation { (done: CheckedContinuation<[LoopStall], Never>) in
            loop.post(label: "hold") {
                reports.stallReported.wait()
                // Held past the report: the kept report has no total yet.
                for _ in 0..<3 { reports.checkedAfterStall.wait() }
                done.resume(returning: loop.flightRecorder.stallsKept)
            }
        }
        await reports.waitForChecks(until: { log.all.contains(where: { $0.message.contains("stall ended") }) })
        loop.stop()
        await loop.waitUntilStopped()

        #expect(whileItLasted.map(\.label) == ["hold"])
        #expect(whileItLasted.map(\.total) == [nil])
        let kept = try #require(loop.flightRecorder.stallsKept.first)
        let total = try #require(kept.total, "the kept report has no total after the stall ended")
        #expect(total > kept.duration, "held for three more checks after the report")
        let logged = log.all.first { $0.message.contains("stall ended") }?.metadata["total_ms"].map { "\($0)" }
        #expect(logged == "\(total.mainlineNanoseconds / 1_000_000)")
        #expect(kept.description.contains("held the loop for") && kept.description.contains("(reported at "))
    }
}
