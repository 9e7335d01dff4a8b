import CMainlineShims
import Foundation
import Testing

@testable import MainlineLoop

/// The lock-free job queue on its own, with real threads: what every loop's `post` relies on.
///
/// The loops' suites test the queue through the loops; these drive it directly, so that a race between producers, the
/// taking loop and `close` can be run many times under load and every job accounted for.
@Suite("Job queue", .timeLimit(.minutes(2)))
struct JobQueueTests {
    /// Under ThreadSanitizer every atomic is instrumented: fewer jobs, same races.
    private static let scale = mainline_is_thread_sanitized() != 0 ? 10 : 1

    @Test func everyJobFromEveryProducerRunsOnceInItsProducersOrder() {
        let producers = 4
        let perProducer = 50_000 / Self.scale
        let queue = _JobQueue()
        let seen = SeenLog(producers: producers)
        let consumer = Consumer(queue)
        consumer.start()
        DispatchQueue.concurrentPerform(iterations: producers) { producer in
            for index in 0..<perProducer {
                #expect(queue.enqueue { seen.record(producer: producer, index: index) } != .closed)
            }
        }
        consumer.finish()
        #expect(seen.counts == Array(repeating: perProducer, count: producers))
        #expect(seen.outOfOrder == 0)
    }

    @Test(arguments: 0..<100)
    func aShutdownRacingProducersLosesNothing(round: Int) {
        // The loop closes and shuts down while two producers keep posting until they are refused. Every accepted job
        // runs or is released by the drain; every refused one is released at once. Nothing is left behind in a closed
        // queue: the closed bit and the push are one atomic step.
        let queue = _JobQueue()
        let ledger = Ledger()
        let consumer = Consumer(queue, closeAfter: 100 + round * 37)
        consumer.start()
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            while true {
                let token = Token(ledger)
                switch queue.enqueue({ token.run() }) {
                case .enqueued, .enqueuedWithoutWaker: ledger.accepted()
                case .closed: return
                case .full: Issue.record("no limit was set")
                }
            }
        }
        consumer.finish()
        #expect(ledger.runs == ledger.acceptedCount, "every accepted job ran once")
        #expect(ledger.alive == 0, "every job, run or refused, was released")
        #expect(queue.enqueue {} == .closed)
    }

    @Test func onlyThePushOntoAnEmptyQueueWakesTheLoop() {
        let queue = _JobQueue()
        let wakes = WakeCount()
        queue.setWaker { wakes.increment() }
        for _ in 0..<10 { _ = queue.enqueue {} }
        #expect(wakes.value == 1)
        var batch = _JobBatch()
        _ = batch.refillIfDone(from: queue)
        #expect(batch.remaining == 10)
        _ = queue.enqueue {}
        #expect(wakes.value == 2, "the first push after a take wakes again")
        #expect(batch.releaseAll() == 10)
        _ = batch.refillIfDone(from: queue)
        _ = batch.releaseAll()
    }

    @Test func aQueueWithoutAWakerAsksTheProducerToStartTheLoop() {
        let queue = _JobQueue()
        #expect(queue.enqueue {} == .enqueuedWithoutWaker)
        #expect(queue.enqueue {} == .enqueued, "only the first push found the queue empty")
        let wakes = WakeCount()
        queue.setWaker { wakes.increment() }
        #expect(wakes.value == 1, "a waker installed while jobs wait wakes at once")
    }

    @Test func aDrainingQueueRefusesPostsTakesJobsAndClosesOnlyWhenEmpty() {
        let queue = _JobQueue()
        var batch = _JobBatch()
        #expect(queue.close(drainDeadline: .afterShutdownBegins(.seconds(1))))
        #expect(!queue.close(), "closing twice says so")
        #expect(queue.enqueue {} == .closed)
        let ran = WakeCount()
        #expect(queue.enqueueJob { ran.increment() } == .enqueuedWithoutWaker)
        #expect(queue.afterPhase(batchIsDone: true) == .moreWaiting)
        #expect(batch.refillIfDone(from: queue) == .afterShutdownBegins(.seconds(1)))
        batch.next()?()
        #expect(ran.value == 1)
        #expect(queue.afterPhase(batchIsDone: batch.isDone) == .closed)
        #expect(queue.enqueueJob {} == .closed, "a closed queue takes nothing")
    }

    @Test func aLimitSetWhileJobsWaitCountsThem() {
        let queue = _JobQueue()
        var batch = _JobBatch()
        for _ in 0..<3 { _ = queue.enqueue {} }
        _ = batch.refillIfDone(from: queue)
        for _ in 0..<2 { _ = queue.enqueue {} }
        queue.setLimit(6, batch: &batch)
        #expect(queue.enqueue {} == .enqueued, "5 pending, room for one")
        #expect(queue.enqueue {} == .full)
        #expect(queue.rejectedCount == 1)
        #expect(queue.enqueueJob {} != .full, "an executor job is never refused for the limit")
        // Running two frees two places once the loop reports them.
        batch.next()?()
        batch.next()?()
        #expect(queue.enqueue {} == .full, "not before the loop reports what it ran")
        #expect(queue.rejectedCount == 2)
        batch.reportFinished(to: queue)
        // 7 pending (the executor job counts) less the 2 that ran: room for one.
        #expect(queue.enqueue {} == .enqueued)
        #expect(queue.enqueue {} == .full)
        #expect(queue.rejectedCount == 3)
        _ = batch.releaseAll()
        _ = batch.refillIfDone(from: queue)
        _ = batch.releaseAll()
    }

    @Test func aBurstLeavesNoMoreThanThePoolsWorthOfNodesBehind() {
        let queue = _JobQueue()
        let count = 200_000 / Self.scale
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            for _ in 0..<(count / 2) { _ = queue.enqueue {} }
        }
        var batch = _JobBatch()
        _ = batch.refillIfDone(from: queue)
        var ran = 0
        while let job = batch.next() {
            job()
            ran += 1
        }
        #expect(ran == count / 2 * 2)
        #expect(mainline_job_nodes_pooled() <= mainline_job_nodes_pool_limit())
    }
}

// MARK: - Helpers

/// A consumer thread that takes and runs jobs as a loop would, until asked to finish (or until it ran `closeAfter`
/// jobs); then it shuts the queue down as a loop does.
private final class Consumer: @unchecked Sendable {
    // @unchecked Sendable: `batch` is touched only by the consumer thread; `stopping` is a lock-protected flag.
    private let queue: _JobQueue
    private var batch = _JobBatch()
    private let stopping = NSLock()
    private var isStopping = false
    private let done = DispatchSemaphore(value: 0)
    /// After running this many jobs the consumer shuts the queue down by itself, producers or not.
    private let closeAfter: Int

    init(_ queue: _JobQueue, closeAfter: Int = .max) {
        self.queue = queue
        self.closeAfter = closeAfter
    }

    func start() {
        Thread.detachNewThread { [self] in
            var ran = 0
            while ran < closeAfter {
                let stop = stopping.withLock { isStopping }
                _ = batch.refillIfDone(from: queue)
                while let job = batch.next() {
                    job()
                    ran += 1
                }
                batch.reportFinished(to: queue)
                if stop, !queue.hasIncoming { break }
                if !queue.hasIncoming { sched_yield() }
            }
            // Shutdown as a loop does it: close, run what was accepted, take the remainder.
            queue.close()
            while queue.afterPhase(batchIsDone: batch.isDone) != .closed {
                _ = batch.refillIfDone(from: queue)
                while let job = batch.next() { job() }
            }
            batch.takeRemainder(from: queue)
            while let job = batch.next() { job() }
            done.signal()
        }
    }

    func finish() {
        stopping.withLock { isStopping = true }
        done.wait()
    }
}

/// Per producer: how many of its jobs ran, and how many ran before one posted earlier.
private final class SeenLog: @unchecked Sendable {
    // @unchecked Sendable: written only by the consumer thread; read after `Consumer.finish()`.
    private var next: [Int]
    private(set) var outOfOrder = 0
    var counts: [Int] { next }

    init(producers: Int) { next = Array(repeating: 0, count: producers) }

    func record(producer: Int, index: Int) {
        if index != next[producer] { outOfOrder += 1 }
        next[producer] = index + 1
    }
}

/// Counts accepted jobs, runs and live tokens.
private final class Ledger: @unchecked Sendable {
    // @unchecked Sendable: every counter is protected by `lock`.
    private let lock = NSLock()
    private var acceptedJobs = 0
    private var ranJobs = 0
    private var live = 0
    var acceptedCount: Int { lock.withLock { acceptedJobs } }
    var runs: Int { lock.withLock { ranJobs } }
    var alive: Int { lock.withLock { live } }
    func accepted() { lock.withLock { acceptedJobs += 1 } }
    func ran() { lock.withLock { ranJobs += 1 } }
    func born() { lock.withLock { live += 1 } }
    func died() { lock.withLock { live -= 1 } }
}

/// What a job captures: counted alive from creation to release.
private final class Token: Sendable {
    private let ledger: Ledger
    init(_ ledger: Ledger) {
        self.ledger = ledger
        ledger.born()
    }
    deinit { ledger.died() }
    func run() { ledger.ran() }
}

/// A thread-safe counter.
private final class WakeCount: @unchecked Sendable {
    // @unchecked Sendable: `count` is protected by `lock`.
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
