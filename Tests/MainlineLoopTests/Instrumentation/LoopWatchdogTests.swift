import Dispatch
import Foundation
import MainlineInspection
import MainlineLoop
import MetricsTestKit
import Testing

/// The stall watchdog on a real main loop in guest mode. The blocking callbacks wait for the watchdog's own report
/// (a semaphore it signals), so nothing here sleeps or depends on how fast the machine is.
@Suite("Loop watchdog", .serialized, .timeLimit(.minutes(2)))
struct LoopWatchdogTests {
    /// What the watchdog reported, and a semaphore per event a blocked callback can wait for.
    final class Reports: Sendable {
        let stalls = _Locked<[LoopStall]>([])
        let stallReported = DispatchSemaphore(value: 0)
        let checkedAfterStall = DispatchSemaphore(value: 0)

        /// Collects stalls while `isCollecting` (always, unless a test says otherwise).
        let isCollecting = _Locked(true)

        /// Waits, check by check after a stall, until `condition` holds — or, if it never does, for 6,000 checks (30 s
        /// at the tests' threshold; under ThreadSanitizer, with other suites holding the main actor, a stall's end
        /// once took more than 1,000), so that a watchdog that never logs fails the test's expectations instead of
        /// hanging it.
        /// The waiting is done by a thread of its own, not a cooperative one (two on this machine, and other suites'
        /// tasks need them meanwhile).
        func waitForChecks(until condition: @escaping @Sendable () -> Bool) async {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread.detachNewThread {
                    for _ in 0..<6_000 {
                        if condition() { break }
                        self.checkedAfterStall.wait()
                    }
                    done.resume()
                }
            }
        }

        /// The loop-callback tests watch the loop's own callbacks only: other suites running beside them may hold the
        /// main actor, which a main-actor watchdog would rightly report.
        func watchdog(threshold: Duration = .milliseconds(20), watchesMainActor: Bool = false) -> LoopWatchdog {
            var watchdog = LoopWatchdog(threshold: threshold, watchesMainActor: watchesMainActor) { stall in
                guard self.isCollecting.withLock({ $0 }) else { return }
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
        let postLine = #line + 2
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.post(label: "load the catalogue") {
                reports.stallReported.wait()
                // Keep blocking while the watchdog checks three more times: it must not report the same stall again.
                for _ in 0..<3 { reports.checkedAfterStall.wait() }
                done.resume()
            }
        }
        // The watchdog logs the stall's total at a check after the callback returned: wait check by check.
        await reports.waitForChecks(until: { log.all.contains(where: { $0.message.contains("stall ended") }) })
        loop.stop()
        await loop.waitUntilStopped()

        let stalls = reports.stalls.withLock { $0 }
        #expect(stalls.map(\.label) == ["load the catalogue"])
        #expect(stalls.map(\.kind) == [.callback])
        #expect(stalls.allSatisfy { $0.duration >= .milliseconds(20) })
        let counter = try metrics.expectCounter(LoopMetricName.stalls, [("label", "load the catalogue")])
        #expect(counter.totalValue == 1)
        // Reported once while it lasted ("at least"), and its total once it had ended.
        let warnings = log.all.filter { $0.level == .warning }
        #expect(warnings.count == 2)
        #expect(warnings.allSatisfy { $0.metadata["label"] == "load the catalogue" })
        let first = warnings.first?.message ?? ""
        // The report names the line that posted the job, and is kept in the loop's flight recorder.
        let site = "MainlineLoopTests/LoopWatchdogTests.swift:\(postLine)"
        #expect(stalls.first?.site?.location == site)
        #expect(warnings.first?.metadata["site"] == "\(site)")
        #expect(first.contains("callback 'load the catalogue' (\(site)) has held the loop for at least"))
        #expect(warnings.last?.message.contains("callback 'load the catalogue' (\(site)) held the loop for") == true)
        #expect(loop.flightRecorder.stallsKept.map(\.label) == ["load the catalogue"])
        #expect(warnings.last?.message.contains("ms in total") == true)
        let total = Int(warnings.last?.metadata["total_ms"].map { "\($0)" } ?? "") ?? 0
        #expect(total >= Int(stalls.first?.duration.mainlineNanoseconds ?? 0) / 1_000_000)
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

    @Test func mainActorWorkOutsideTheLoopsCallbacksIsReportedOnceAsMainActorAndItsTotalIsLoggedWhenItEnds() async {
        let loop = MainLoop()
        let log = RecordingLogHandler.Recorder()
        let reports = Reports()
        // Not a post: main-actor work that dispatch runs beside the loop (guest mode), as a Hummingbird handler's
        // `await MainActor.run {}` does. The watchdog starts inside it, so its first heartbeat is queued behind this
        // block; the main actor is serial, so while the block holds it no other test's main-actor work can be what the
        // watchdog reports.
        let reported = await MainActor.run { () -> Bool in
            loop.instrument(
                LoopInstrumentation(
                    metricsFactory: TestMetrics(),
                    logger: log.logger(),
                    watchdog: reports.watchdog(watchesMainActor: true)
                )
            )
            // A safety net against a broken watchdog hanging every main-actor test: no report in 30 s fails the test.
            guard reports.stallReported.wait(timeout: .now() + .seconds(30)) == .success else { return false }
            for _ in 0..<3 { reports.checkedAfterStall.wait() }
            reports.isCollecting.withLock { $0 = false }
            return true
        }
        #expect(reported, "the watchdog never reported main-actor work that held the main actor")
        // The watchdog logs the stall's end at a check after the main actor is free again: wait check by check.
        await reports.waitForChecks(until: { log.all.contains(where: { $0.message.contains("stall ended") }) })
        loop.stop()
        await loop.waitUntilStopped()
        let stalls = reports.stalls.withLock { $0 }
        #expect(stalls.map(\.label) == ["main actor"])
        #expect(stalls.allSatisfy { $0.duration >= .milliseconds(20) })
        // Up to the end of this test's stall: afterwards the watchdog rightly reports other tests' main-actor work.
        let warnings = log.all.filter { $0.level == .warning }
        let isEnd = { (record: RecordingLogHandler.Record) in record.message.contains("stall ended") }
        let ours = warnings.prefix { !isEnd($0) } + warnings.drop { !isEnd($0) }.prefix(1)
        #expect(ours.map { $0.metadata["label"] } == ["main actor", "main actor"])
        #expect(ours.first?.message.contains("callback 'main actor' has held the loop for at least") == true)
        #expect(ours.last?.message.contains("stall ended: callback 'main actor' held the loop for") == true)
        let total = Int(ours.last?.metadata["total_ms"].map { "\($0)" } ?? "") ?? 0
        #expect(total >= Int(stalls.first?.duration.mainlineNanoseconds ?? 0) / 1_000_000)
    }
}
