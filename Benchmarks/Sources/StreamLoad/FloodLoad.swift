import Foundation
import StreamWire

/// As fast as it can: `tasks` tasks, each starting its next call (of `batch` events) as soon as its last one returned,
/// for `warmUpSeconds + seconds`; events started after the warm-up are measured.
///
/// - Parameters:
///   - tasks: How many publishing calls are in flight at once.
///   - batch: Events per call.
///   - warmUpSeconds: Seconds of warm-up events.
///   - seconds: Seconds of measured events.
///   - publish: The peer's call.
///   - tally: Where the results go.
func runFlood(
    tasks: Int,
    batch: Int = 1,
    warmUpSeconds: Double,
    seconds: Double,
    publish: @escaping PublishCall,
    tally: LoadTally
)
    async
{
    let start = monotonicNanoseconds()
    let measuredFrom = start + Int64(warmUpSeconds * 1e9)
    let end = measuredFrom + Int64(seconds * 1e9)
    let indices = IndexCounter()
    await withDiscardingTaskGroup { group in
        for _ in 0..<tasks {
            group.addTask {
                while true {
                    let began = monotonicNanoseconds()
                    if began >= end { return }
                    let stamps = (0..<batch).map { _ in
                        Stamp(index: indices.next(), isWarmUp: began < measuredFrom, publishedAt: began)
                    }
                    do {
                        try await publish(stamps)
                        let committed = monotonicNanoseconds()
                        for stamp in stamps { tally.committed(stamp, at: committed) }
                    } catch {
                        tally.failed(error)
                        return
                    }
                }
            }
        }
    }
}

/// Hands out 0, 1, 2, … to any number of tasks.
///
/// All operations on `IndexCounter` are thread-safe (protected by `lock`).
final class IndexCounter: @unchecked Sendable {
    private let lock = NSLock()
    /// Protected by `lock`.
    private var nextIndex = 0

    /// The next index.
    func next() -> Int {
        lock.withLock {
            defer { nextIndex += 1 }
            return nextIndex
        }
    }
}
