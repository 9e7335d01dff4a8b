import CMainlineShims
import Foundation
import MainlineLoop
import MainlineTesting

/// How many values each of a flood's producers places: fewer under ThreadSanitizer, where four producer threads on two
/// cores at full speed starve the main actor that every other suite of the run shares (measured: time-limited suites
/// beside them took 50 of their 60 seconds).
let floodPerProducer = mainline_is_thread_sanitized() != 0 ? 25_000 : 100_000

/// Every value a flood of four producers places.
let floodTotal = 4 * floodPerProducer

/// The last sequence number of each of a flood's four producers.
let floodLastSequences = Array(repeating: floodPerProducer - 1, count: 4)

/// Runs `producers` threads that each call `place(producer, sequence)` for `sequence` in `0..<perProducer`,
/// while the test's main actor keeps stepping `loop` (so the consumer drains concurrently), until every producer
/// has finished and the loop is idle.
///
/// Returns how often producers woke the loop meanwhile: posted jobs it ran plus settle requests it took.
@MainActor
func flood(
    loop: TestLoop,
    producers: Int = 4,
    perProducer: Int = floodPerProducer,
    place: @escaping @Sendable (_ producer: Int, _ sequence: Int) -> Void
) async -> Int {
    let finished = _Locked(0)
    let postsBefore = loop.postsRun
    let requestsBefore = loop.settleRequestsFromOtherThreads
    for producer in 0..<producers {
        Thread.detachNewThread {
            for sequence in 0..<perProducer { place(producer, sequence) }
            finished.withLock { $0 += 1 }
        }
    }
    // `run(until:)`, not `runUntilIdle()` in a loop: four producers can keep the loop busy for more than 10,000
    // iterations in a row, which `runUntilIdle()` reports as a loop retriggering itself (a fresh-clone CI's plain run
    // trapped on it once). No attempt bound, as before: the flood ends when its producers have and the loop is idle.
    await loop.run(until: { finished.withLock { $0 } == producers && !loop.hasPendingWork }, attempts: .max)
    // A wake-up is anything another thread asked of the loop: a post, or a settle request (what lazy events and
    // mailboxes make: one per burst that coalesces into one delivery).
    return (loop.postsRun - postsBefore) + (loop.settleRequestsFromOtherThreads - requestsBefore)
}

/// Checks per-producer order of delivered values: each producer's sequence numbers must strictly increase.
@MainActor
final class OrderCheck {
    private var last: [Int]
    private(set) var violations = 0
    private(set) var received = 0

    init(producers: Int = 4) { last = Array(repeating: -1, count: producers) }

    func receive(producer: Int, sequence: Int) {
        if sequence <= last[producer] { violations += 1 }
        last[producer] = sequence
        received += 1
    }

    /// The last sequence number received from each producer.
    var lastReceived: [Int] { last }
}
