import Foundation
import StreamWire

/// Open loop at a fixed rate: event *i* is started at `start + i / rate` (absolute deadlines on `CLOCK_MONOTONIC`,
/// kept by a thread of its own), each in a task of its own, whether or not the ones before have committed. A slow
/// commit therefore never delays the next event (no coordinated omission); how late each call started is recorded.
///
/// - Parameters:
///   - rate: Events per second.
///   - warmUpSeconds: Seconds of warm-up events (published and delivered, not measured).
///   - seconds: Seconds of measured events.
///   - publish: The peer's call.
///   - tally: Where the results go.
func runPaced(
    rate: Int,
    warmUpSeconds: Double,
    seconds: Double,
    publish: @escaping PublishCall,
    tally: LoadTally
) async {
    let warmUpCount = Int(Double(rate) * warmUpSeconds)
    let total = warmUpCount + Int(Double(rate) * seconds)
    let interval = 1_000_000_000 / Int64(rate)
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        Thread.detachNewThread {
            let inFlight = DispatchGroup()
            let start = monotonicNanoseconds() + 1_000_000
            for index in 0..<total {
                let deadline = start + Int64(index) * interval
                sleepUntil(monotonicNanoseconds: deadline)
                inFlight.enter()
                Task {
                    defer { inFlight.leave() }
                    let began = monotonicNanoseconds()
                    tally.started(late: began - deadline)
                    let stamp = Stamp(index: index, isWarmUp: index < warmUpCount, publishedAt: began)
                    do {
                        try await publish([stamp])
                        tally.committed(stamp, at: monotonicNanoseconds())
                    } catch {
                        tally.failed(error)
                    }
                }
            }
            inFlight.wait()
            done.resume()
        }
    }
}
