import CMainlineShims
import Foundation
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// The lock-free job queue on its own, with real threads: what every loop's `post` relies on.
///
/// The loops' suites test the queue through the loops; these drive it directly, so that a race between producers, the
/// taking loop and `close` can be run many times under load and every job accounted for.
///
/// Serialized: each case runs its own producer threads at full speed, and a hundred cases at once on two cores would
/// starve the main actor that the other suites of the run share.
@Suite("Job queue", .serialized, .timeLimit(.minutes(2)))
struct JobQueueTests {
    /// Under ThreadSanitizer every atomic is instrumented: fewer jobs, same races.
    private static let scale = mainline_is_thread_sanitized() != 0 ? 10 : 1
    /// Rounds of the shutdown race: the plain run found a broken refusal check in 4 to 26 of 100.
    private static let shutdownRounds = mainline_is_thread_sanitized() != 0 ? 30 : 100

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

    @Test(arguments: 0..<Self.shutdownRounds)
    func aShutdownRacingProducersLosesNothing(round: Int) {
        // The loop closes and shuts down while two producers keep posting until they are refused. Every accepted job
        // runs; every refused one is released at once. Nothing is left behind in a closed queue: the closed bit and
        // the reservation are one atomic step.
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

    @Test(arguments: 0..<3)
    func aLoopThatSleepsWhenEmptyIsWokenForEveryPostAcrossBlocks(round: Int) {
        // The loop sleeps whenever a phase leaves the queue empty and relies on producers to wake it — across many
        // block boundaries, where the tail rests at a block's extra position while the next block is installed (made
        // long here, so that the loop often takes its batch right then). A lost wake-up leaves the loop asleep with
        // posts waiting: reported as such instead of hanging until the time limit.
        let queue = _JobQueue()
        let wakeUps = DispatchSemaphore(value: 0)
        queue.setWaker { wakeUps.signal() }
        let perProducer = 100_000 / Self.scale
        let total = 2 * perProducer
        let seen = SeenLog(producers: 2)
        let finished = DispatchSemaphore(value: 0)
        let lostWakeUps = WakeCount()
        queue.yieldsWhileInstallingForTesting = true
        Thread.detachNewThread {
            var ran = 0
            while ran < total {
                ran += queue.runPhase(budget: 16)
                guard ran < total, queue.prepareToSleep() else { continue }
                if wakeUps.wait(timeout: .now() + .seconds(10)) == .timedOut, queue.hasIncoming {
                    lostWakeUps.increment()
                }
            }
            finished.signal()
        }
        DispatchQueue.concurrentPerform(iterations: 2) { producer in
            for index in 0..<perProducer {
                _ = queue.enqueue { seen.record(producer: producer, index: index) }
                // Bursts with pauses, so that the loop goes to sleep again and again.
                if index % (37 + round) == 0 { sched_yield() }
            }
        }
        finished.wait()
        #expect(lostWakeUps.value == 0)
        #expect(seen.counts == [perProducer, perProducer])
        #expect(seen.outOfOrder == 0)
    }

    @Test func onlyThePushWhereTheLoopWentToSleepWakesIt() {
        let queue = _JobQueue()
        let wakes = WakeCount()
        queue.setWaker { wakes.increment() }
        for _ in 0..<10 { _ = queue.enqueue {} }
        #expect(wakes.value == 1, "a new queue is a loop asleep on an empty queue: the first push wakes")
        queue.refillIfDone()
        #expect(queue.batchRemaining == 10)
        _ = queue.enqueue {}
        #expect(wakes.value == 1, "a loop that has not gone back to sleep is not woken again")
        while let item = queue.next() { item.job() }
        queue.endPhase()
        #expect(queue.hasIncoming, "the post behind the batch is still waiting")
        #expect(!queue.prepareToSleep(), "a loop with a post waiting must not sleep")
        _ = queue.enqueue {}
        #expect(wakes.value == 1, "nor is it woken: it did not go to sleep")
        queue.refillIfDone()
        while let item = queue.next() { item.job() }
        queue.endPhase()
        #expect(!queue.hasIncoming)
        #expect(queue.prepareToSleep())
        _ = queue.enqueue {}
        #expect(wakes.value == 2, "the first push after the loop went to sleep on an empty queue wakes it")
        _ = queue.enqueue {}
        #expect(wakes.value == 2)
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
        #expect(queue.close(drainDeadline: .afterShutdownBegins(.seconds(1))))
        #expect(!queue.close(), "closing twice says so")
        #expect(queue.enqueue {} == .closed)
        let ran = WakeCount()
        #expect(queue.enqueueJob { ran.increment() } == .enqueuedWithoutWaker)
        queue.refillIfDone()
        #expect(queue.closingDeadline == .afterShutdownBegins(.seconds(1)))
        #expect(queue.afterPhase() == .moreWaiting)
        queue.next()?.job()
        #expect(ran.value == 1)
        #expect(queue.afterPhase() == .closed)
        #expect(queue.enqueueJob {} == .closed, "a closed queue takes nothing")
    }

    @Test func theLimitCountsEveryJobNotYetRunAsOfTheLastPhase() {
        let queue = _JobQueue()
        for _ in 0..<3 { _ = queue.enqueue {} }
        queue.refillIfDone()
        for _ in 0..<2 { _ = queue.enqueue {} }
        queue.setLimit(6)
        #expect(queue.enqueue {} == .enqueued, "5 pending, room for one")
        #expect(queue.enqueue {} == .full)
        #expect(queue.rejectedCount == 1)
        #expect(queue.enqueueJob {} != .full, "an executor job is never refused for the limit")
        // Running two frees two places once the phase ends.
        queue.next()?.job()
        queue.next()?.job()
        #expect(queue.enqueue {} == .full, "not before the loop's phase ends")
        #expect(queue.rejectedCount == 2)
        queue.endPhase()
        // 7 pending (the executor job counts) less the 2 that ran: room for one.
        #expect(queue.enqueue {} == .enqueued)
        #expect(queue.enqueue {} == .full)
        #expect(queue.rejectedCount == 3)
        queue.setLimit(nil)
        #expect(queue.enqueue {} == .enqueued)
        #expect(queue.pendingCount == 7)
    }

    @Test func aFloodAcrossManyBlocksRunsInOrderAndKeepsTheBlocksItLeft() {
        // 10 blocks' worth, taken in phases of 100 as a loop's budget would, with posts arriving between phases.
        let queue = _JobQueue()
        let seen = SeenLog(producers: 1)
        let total = _JobBlock.capacity * 10
        var posted = 0
        var ran = 0
        while ran < total {
            for _ in 0..<150 where posted < total {
                let index = posted
                _ = queue.enqueue { seen.record(producer: 0, index: index) }
                posted += 1
            }
            ran += queue.runPhase(budget: 100)
        }
        #expect(seen.counts == [total])
        #expect(seen.outOfOrder == 0)
        #expect(queue.spares.count > 0, "the blocks left are kept for reuse")
        #expect(!queue.hasIncoming)
    }
}

// MARK: - Helpers

extension _JobQueue {
    /// One post phase as a loop runs it: refill, at most `budget` jobs, end. Returns how many ran.
    fileprivate func runPhase(budget: Int) -> Int {
        refillIfDone()
        var ran = 0
        while ran < budget, let item = next() {
            item.job()
            ran += 1
        }
        endPhase()
        return ran
    }
}

/// A consumer thread that takes and runs jobs as a loop would, until asked to finish (or until it ran `closeAfter`
/// jobs); then it shuts the queue down as a loop does.
private final class Consumer: @unchecked Sendable {
    // @unchecked Sendable: the queue's loop side is used only by the consumer thread; `isStopping` is protected by
    // `stopping`.
    private let queue: _JobQueue
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
                queue.refillIfDone()
                while let item = queue.next() {
                    item.job()
                    ran += 1
                }
                queue.endPhase()
                if stop, !queue.hasIncoming { break }
                if !queue.hasIncoming { sched_yield() }
            }
            // Shutdown as a loop does it: close, run what was accepted until the queue closes itself.
            queue.close()
            while queue.afterPhase() != .closed {
                queue.refillIfDone()
                while let item = queue.next() { item.job() }
            }
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
