import Dispatch
import Foundation

/// A fixed set of long-lived producer threads that run one piece of work each, on demand.
///
/// Must be used from one thread at a time (the benchmark thread). The threads are created once and then wait
/// on a semaphore, so starting a round costs a semaphore signal, not a thread spawn.
final class ProducerThreads: @unchecked Sendable {
    // @unchecked Sendable: `work` is written by the benchmark thread before it signals `start`, and read by the
    // producers only after they waited on it; `finished` orders their last reads before the next write.
    private var work: (@Sendable (_ producer: Int) -> Void)?
    private let start: [DispatchSemaphore]
    private let finished = DispatchSemaphore(value: 0)

    /// The number of producer threads.
    let count: Int

    init(count: Int) {
        self.count = count
        start = (0..<count).map { _ in DispatchSemaphore(value: 0) }
        for producer in 0..<count {
            let thread = Thread { [self] in
                while true {
                    start[producer].wait()
                    work!(producer)
                    finished.signal()
                }
            }
            thread.name = "producer-\(producer)"
            thread.start()
        }
    }

    /// Runs `work` once on every producer thread, concurrently, and returns when all of them have finished.
    func run(_ work: @escaping @Sendable (_ producer: Int) -> Void) {
        self.work = work
        for semaphore in start { semaphore.signal() }
        for _ in 0..<count { finished.wait() }
    }
}

/// One producer thread.
let oneProducer = ProducerThreads(count: 1)

/// Two producer threads.
let twoProducers = ProducerThreads(count: 2)
