import Dispatch
import MainlineLoop
import MetricsTestKit
import Testing

/// The stall watchdog on a real main loop in guest mode. The blocking callbacks wait for the watchdog's own report
/// (a semaphore it signals), so nothing here sleeps or depends on how fast the machine is.
@Suite("Loop watchdog", .timeLimit(.minutes(1)))
struct LoopWatchdogTests {
    /// What the watchdog reported, and a semaphore per event a blocked callback can wait for.
    final class Reports: Sendable {
        let stalls = _Locked<[LoopStall]>([])
        let stallReported = DispatchSemaphore(value: 0)
        let checkedAfterStall = DispatchSemaphore(value: 0)

        func watchdog(threshold: Duration = .milliseconds(20)) -> LoopWatchdog {
            var watchdog = LoopWatchdog(threshold: threshold) { stall in
                self.stalls.withLock { $0.append(stall) }
                self.stallReported.signal()
            }
            watchdog.onCheck = {
                if !self.stalls.withLock({ $0.isEmpty }) { self.checkedAfterStall.signal() }
            }
            return watchdog
        }
    }

    @Test func aCallbackBlockedPastTheThresholdIsReportedOnceWithItsLabel() async throws {
        let loop = MainLoop()
        let metrics = TestMetrics()
        let log = RecordingLogHandler.Recorder()
        let reports = Reports()
        await MainActor.run {
            loop.instrument(
                LoopInstrumentation(metricsFactory: metrics, logger: log.logger(), watchdog: reports.watchdog())
            )
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.post(label: "load the catalogue") {
                reports.stallReported.wait()
                // Keep blocking while the watchdog checks three more times: it must not report the same stall again.
                for _ in 0..<3 { reports.checkedAfterStall.wait() }
                done.resume()
            }
        }
        loop.stop()
        await loop.waitUntilStopped()

        let stalls = reports.stalls.withLock { $0 }
        #expect(stalls.map(\.label) == ["load the catalogue"])
        #expect(stalls.map(\.kind) == [.callback])
        #expect(stalls.allSatisfy { $0.duration >= .milliseconds(20) })
        let counter = try metrics.expectCounter(LoopMetricName.stalls, [("label", "load the catalogue")])
        #expect(counter.totalValue == 1)
        let warnings = log.all.filter { $0.level == .warning }
        #expect(warnings.count == 1)
        #expect(warnings.first?.metadata["label"] == "load the catalogue")
        #expect(warnings.first?.message.contains("load the catalogue") == true)
    }

    @Test func unlabelledWorkIsReportedByWhatItIs() async {
        let loop = MainLoop()
        let reports = Reports()
        await MainActor.run {
            loop.instrument(LoopInstrumentation(metricsFactory: TestMetrics(), watchdog: reports.watchdog()))
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.post {
                reports.stallReported.wait()
                loop.schedule(after: .zero) {
                    reports.stallReported.wait()
                    loop.schedule(after: .zero, label: "refresh prices") {
                        reports.stallReported.wait()
                        done.resume()
                    }
                }
            }
        }
        loop.stop()
        await loop.waitUntilStopped()
        #expect(reports.stalls.withLock { $0.map(\.label) } == ["post", "timer", "refresh prices"])
    }

    @Test func anIterationOfShortCallbacksThatHoldsTheLoopTooLongIsReportedAsAnIteration() async {
        let loop = MainLoop()
        let reports = Reports()
        let checked = DispatchSemaphore(value: 0)
        var watchdog = reports.watchdog(threshold: .milliseconds(200))
        watchdog.onCheck = { checked.signal() }
        await MainActor.run {
            loop.instrument(LoopInstrumentation(metricsFactory: TestMetrics(), watchdog: watchdog))
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.post {
                // Posted from the loop: they all run in the next iteration, back to back.
                for index in 0..<1_000 {
                    loop.post(label: "slice") {
                        if index == 999 { done.resume() }
                        guard reports.stalls.withLock({ $0.isEmpty }) else { return }
                        // Each slice lasts until the watchdog's next check (a quarter of the threshold), so no
                        // slice alone stalls the loop, but a few of them in a row hold it past the threshold.
                        while checked.wait(timeout: .now()) == .success {}
                        checked.wait()
                    }
                }
            }
        }
        loop.stop()
        await loop.waitUntilStopped()
        let stalls = reports.stalls.withLock { $0 }
        #expect(stalls.map(\.kind) == [.iteration])
        #expect(stalls.map(\.label) == ["slice"])
    }
}
