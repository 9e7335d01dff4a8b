import Foundation
import StreamWire

/// The publishing process's books: what committed, what failed, and how late the paced calls started.
///
/// All operations on `LoadTally` are thread-safe (protected by `lock`).
final class LoadTally: @unchecked Sendable {
    private let lock = NSLock()
    /// Protected by `lock`.
    private var report = LoadReport()
    /// Protected by `lock`.
    private var lateness: [Int64] = []
    /// Protected by `lock`. How long each measured call took.
    private var calls: [Int64] = []
    /// Protected by `lock`.
    private var firstError: (any Error)?

    /// Counts one call that returned, at `end`; `stamp` says whether it was measured.
    func committed(_ stamp: Stamp, at end: Int64) {
        lock.withLock {
            report.published += 1
            if !stamp.isWarmUp {
                report.measured += 1
                calls.append(end - stamp.publishedAt)
                report.windowStart =
                    report.windowStart == 0 ? stamp.publishedAt : min(report.windowStart, stamp.publishedAt)
            }
            report.windowEnd = max(report.windowEnd, end)
        }
    }

    /// Counts one call that threw.
    func failed(_ error: any Error) {
        lock.withLock {
            report.failed += 1
            if firstError == nil { firstError = error }
        }
    }

    /// Records how late (nanoseconds) one paced call was started after its deadline.
    func started(late: Int64) {
        lock.withLock { lateness.append(late) }
    }

    /// The first error any call threw, if one did.
    var error: (any Error)? { lock.withLock { firstError } }

    /// The report, with the lateness percentiles.
    func finalReport() -> LoadReport {
        lock.withLock {
            var report = report
            let late = Percentiles(lateness)
            report.lateP50 = late.at(0.5)
            report.lateP99 = late.at(0.99)
            report.lateMax = late.maximum
            let calls = Percentiles(calls)
            report.callP50 = calls.at(0.5)
            report.callP99 = calls.at(0.99)
            return report
        }
    }
}
