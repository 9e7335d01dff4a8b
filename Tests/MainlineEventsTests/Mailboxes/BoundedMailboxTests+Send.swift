import CMainlineShims
import MainlineLoop
import MainlineTesting
import Testing

@testable import MainlineEvents

/// `BoundedMailbox.send(_:)` and the `.suspend` policy: producers that wait for room, first come first served; the
/// loop that never waits for them; cancellation and a stopping loop that end the wait; counts that add up.
///
/// No test sleeps or times anything. The time limit only turns a broken mailbox whose sender waits forever into a
/// failure instead of a hung run. It is 3 minutes, not 1: the suite's tests run on the main actor, which every other
/// suite of the run shares, and under ThreadSanitizer the flood below waited its turn there for 50 of 60 seconds.
/// (The shortest limit wins, so a longer one on a test alone would not apply.)
@MainActor
@Suite("BoundedMailbox.send", .timeLimit(.minutes(3)))
struct BoundedMailboxSendTests {
    /// A `.suspend` mailbox on `loop` whose new waiters are reported to `waiting`.
    func suspendMailbox(capacity: Int, loop: TestLoop, waiting: WaitingSenders) -> BoundedMailbox<Int> {
        let mailbox = BoundedMailbox<Int>(capacity: capacity, overflow: .suspend, loop: loop)
        mailbox.store.withLock { storage, _ in storage.waiters.didStartWaiting = waiting.didStartWaiting }
        return mailbox
    }

    /// What `sender` returned or threw. If the test is cancelled meanwhile (its time limit), the sender is cancelled
    /// too, so that a sender a broken mailbox left waiting ends the test instead of hanging the run.
    /// Starts one sender per value, each in a detached task (preferring `executor` when given), and returns once each
    /// of them waits, in the order of `values`.
    func startWaitingSenders(
        _ values: ClosedRange<Int>,
        into mailbox: BoundedMailbox<Int>,
        waiting: WaitingSenders,
        on executor: (any TaskExecutor)? = nil
    ) async -> [Task<Bool, any Error>] {
        var senders: [Task<Bool, any Error>] = []
        for value in values {
            senders.append(Task.detached(executorPreference: executor) { try await mailbox.send(value) })
            await waiting.until(value)
        }
        return senders
    }

    func outcome(of sender: Task<Bool, any Error>) async -> Result<Bool, any Error> {
        await withTaskCancellationHandler {
            await sender.result
        } onCancel: {
            sender.cancel()
        }
    }

    @Test func sendPlacesAtOnceWhileThereIsRoom() async throws {
        let loop = TestLoop()
        let mailbox = BoundedMailbox<Int>(capacity: 2, overflow: .suspend, loop: loop)
        #expect(try await mailbox.send(1))
        #expect(try await mailbox.send(2))
        #expect(mailbox.counts == MailboxCounts(accepted: 2))
        #expect(mailbox.takeAll() == [1, 2])
    }

    @Test func placeOnAFullSuspendMailboxRefusesAsRejectDoes() async throws {
        let loop = TestLoop()
        let mailbox = BoundedMailbox<Int>(capacity: 1, overflow: .suspend, loop: loop)
        #expect(mailbox.place(1))
        #expect(!mailbox.place(2))
        #expect(mailbox.counts == MailboxCounts(accepted: 1, rejected: 1))
    }

    @Test func sendWithTheOtherPoliciesAppliesThePolicyAndNeverWaits() async throws {
        let loop = TestLoop()
        let reject = BoundedMailbox<Int>(capacity: 1, overflow: .reject, loop: loop)
        #expect(try await reject.send(1))
        #expect(try await !reject.send(2))
        #expect(reject.counts == MailboxCounts(accepted: 1, rejected: 1))
        let dropOldest = BoundedMailbox<Int>(capacity: 1, overflow: .dropOldest, loop: loop)
        #expect(try await dropOldest.send(1))
        #expect(try await dropOldest.send(2))
        #expect(dropOldest.takeAll() == [2])
        let dropNewest = BoundedMailbox<Int>(capacity: 1, overflow: .dropNewest, loop: loop)
        #expect(try await dropNewest.send(1))
        #expect(try await dropNewest.send(2))
        #expect(dropNewest.takeAll() == [1])
        #expect(dropNewest.counts == MailboxCounts(accepted: 2, dropped: 1, delivered: 1))
    }

    /// Senders 1…5 start waiting one after another on a full mailbox; a `place` and a later `send` come after them.
    /// Takes hand the room out in the order the senders started waiting, and the later send waits behind them.
    @Test func waitingSendersGetRoomInTheOrderTheyStartedWaiting() async throws {
        let loop = TestLoop()
        let waiting = WaitingSenders()
        let mailbox = suspendMailbox(capacity: 1, loop: loop, waiting: waiting)
        #expect(mailbox.place(0))
        var senders = await startWaitingSenders(1...5, into: mailbox, waiting: waiting)
        #expect(!mailbox.place(99), "place never overtakes a waiting sender")
        senders.append(Task.detached { try await mailbox.send(6) })
        await waiting.until(6)
        #expect(mailbox.counts == MailboxCounts(accepted: 1, rejected: 1, waiting: 6))

        var taken: [Int] = []
        while let value = mailbox.take() { taken.append(value) }
        #expect(taken == [0, 1, 2, 3, 4, 5, 6])
        for sender in senders { #expect(try await outcome(of: sender).get()) }
        #expect(mailbox.counts == MailboxCounts(accepted: 7, rejected: 1, delivered: 7))
    }

    /// `takeAll` frees every slot at once: the oldest waiters fill them, in order, and the event announces them.
    @Test func takeAllHandsEveryFreedSlotToTheOldestWaitersAndTriggersTheEvent() async throws {
        let loop = TestLoop()
        let waiting = WaitingSenders()
        let mailbox = suspendMailbox(capacity: 2, loop: loop, waiting: waiting)
        var deliveries: [[Int]] = []
        var token: SimpleEventToken?
        mailbox.event.addObserver(&token) { _ in deliveries.append(mailbox.takeAll()) }
        #expect(try await mailbox.send(1))
        #expect(try await mailbox.send(2))
        var senders: [Task<Bool, any Error>] = []
        for value in 3...5 {
            senders.append(Task.detached { try await mailbox.send(value) })
            await waiting.until(value - 2)
        }
        await loop.runUntilIdle()
        #expect(deliveries == [[1, 2], [3, 4], [5]])
        for sender in senders { #expect(try await outcome(of: sender).get()) }
        #expect(mailbox.counts == MailboxCounts(accepted: 5, delivered: 5))
        _ = token
    }

    /// The producers' tasks are held (their executor runs nothing) while the consumer takes: the loop hands the room
    /// over and moves their values in by itself, without waiting for a producer to run.
    @Test func theConsumerNeverWaitsForAProducerToRun() async throws {
        let loop = TestLoop()
        let waiting = WaitingSenders()
        let mailbox = suspendMailbox(capacity: 1, loop: loop, waiting: waiting)
        let producers = HeldExecutor()
        #expect(mailbox.place(0))
        let senders = await startWaitingSenders(1...3, into: mailbox, waiting: waiting, on: producers)
        await producers.hold()
        var taken: [Int] = []
        while let value = mailbox.take() { taken.append(value) }
        #expect(taken == [0, 1, 2, 3], "the waiters' values arrived while no producer could run")
        #expect(producers.heldJobs == 3, "all three producers resumed, none ran yet")
        #expect(mailbox.counts == MailboxCounts(accepted: 4, delivered: 4))
        producers.release()
        // Cancelling now changes nothing: each was handed room before (a correct mailbox). A broken one, whose
        // senders still wait, fails here instead of hanging the test.
        for sender in senders { sender.cancel() }
        for sender in senders { #expect(try await outcome(of: sender).get()) }
        #expect(mailbox.counts == MailboxCounts(accepted: 4, delivered: 4))
    }

    /// Senders 1, 2, 3 wait; the middle one is cancelled: it throws, its value is skipped, the others keep their turn.
    @Test func aCancelledWaitingSenderThrowsAndItsValueIsNeitherAcceptedNorDelivered() async throws {
        let loop = TestLoop()
        let waiting = WaitingSenders()
        let mailbox = suspendMailbox(capacity: 1, loop: loop, waiting: waiting)
        #expect(mailbox.place(0))
        let senders = await startWaitingSenders(1...3, into: mailbox, waiting: waiting)
        // `cancel()` runs the sender's cancellation handler before it returns: the sender has left the queue now.
        senders[1].cancel()
        #expect(mailbox.counts == MailboxCounts(accepted: 1, rejected: 1, waiting: 2))
        var taken: [Int] = []
        while let value = mailbox.take() { taken.append(value) }
        #expect(taken == [0, 1, 3], "the cancelled sender's value was skipped; the others kept their turn")
        await #expect(throws: CancellationError.self) { try await outcome(of: senders[1]).get() }
        #expect(try await outcome(of: senders[0]).get())
        #expect(try await outcome(of: senders[2]).get())
        #expect(mailbox.counts == MailboxCounts(accepted: 3, rejected: 1, delivered: 3))
    }

    @Test func aSenderCancelledBeforeItWaitsThrowsInsteadOfWaiting() async throws {
        let loop = TestLoop()
        let mailbox = BoundedMailbox<Int>(capacity: 1, overflow: .suspend, loop: loop)
        // Whichever comes first: the sender finished, or (a broken mailbox) it started waiting.
        let (firsts, first) = AsyncStream.makeStream(of: String.self)
        mailbox.store.withLock { storage, _ in storage.waiters.didStartWaiting = { _ in first.yield("waiting") } }
        let sender = Task.detached { () -> (Bool?, (any Error)?) in
            withUnsafeCurrentTask { $0?.cancel() }
            // Room: placed, as `place` would (cancellation is checked only when the sender must wait).
            let withRoom = try? await mailbox.send(1)
            defer { first.yield("finished") }
            do {
                _ = try await mailbox.send(2)
                return (withRoom, nil)
            } catch {
                return (withRoom, error)
            }
        }
        var firstEvent: String?
        for await event in firsts {
            firstEvent = event
            break
        }
        #expect(firstEvent == "finished", "a cancelled task must not start waiting")
        if firstEvent == "waiting" { _ = mailbox.takeAll() }  // let the broken sender end
        let (withRoom, whenFull) = await sender.value
        #expect(withRoom == true)
        #expect(whenFull is CancellationError)
        #expect(mailbox.counts == MailboxCounts(accepted: 1, rejected: 1))
        #expect(mailbox.takeAll() == [1])
    }

    /// Cancelled after a take handed it room, but before its task ran again: the send succeeded and says so.
    @Test func aSenderCancelledAfterItWasHandedRoomReturnsNormally() async throws {
        let loop = TestLoop()
        let waiting = WaitingSenders()
        let mailbox = suspendMailbox(capacity: 1, loop: loop, waiting: waiting)
        let producers = HeldExecutor()
        #expect(mailbox.place(0))
        let sender = Task.detached(executorPreference: producers) { try await mailbox.send(1) }
        await waiting.until(1)
        await producers.hold()
        #expect(mailbox.take() == 0)
        sender.cancel()
        producers.release()
        #expect(try await outcome(of: sender).get())
        #expect(mailbox.takeAll() == [1])
        #expect(mailbox.counts == MailboxCounts(accepted: 2, delivered: 2))
    }

    @Test func stoppingTheLoopEndsEveryWaitWithLoopStopped() async throws {
        let loop = TestLoop()
        let waiting = WaitingSenders()
        let mailbox = suspendMailbox(capacity: 1, loop: loop, waiting: waiting)
        #expect(mailbox.place(0))
        let senders = await startWaitingSenders(1...3, into: mailbox, waiting: waiting)
        loop.stop()
        await loop.runUntilIdle()
        for sender in senders {
            await #expect(throws: LoopStopped.self) { try await outcome(of: sender).get() }
        }
        #expect(mailbox.counts == MailboxCounts(accepted: 1, rejected: 3))
        // Later: a send that would wait throws at once; one that fits is placed, as `place` would.
        await #expect(throws: LoopStopped.self) { try await mailbox.send(4) }
        #expect(mailbox.take() == 0)
        #expect(try await mailbox.send(5))
        #expect(mailbox.counts == MailboxCounts(accepted: 2, rejected: 4, delivered: 1))
    }

    @Test func aMailboxCreatedOnAStoppedLoopNeverLetsASenderWait() async throws {
        let loop = TestLoop()
        loop.stop()
        await loop.runUntilIdle()
        let mailbox = BoundedMailbox<Int>(capacity: 1, overflow: .suspend, loop: loop)
        #expect(try await mailbox.send(1))
        await #expect(throws: LoopStopped.self) { try await mailbox.send(2) }
    }

    /// 4 producer tasks × 100,000 values through 64 slots into a consumer on the loop, three times: every value
    /// delivered once, each producer's in order, nobody left waiting. Under ThreadSanitizer, beside every other suite,
    /// the consumer (stepped on the main actor) got as little as 700 values a second — alone it does 80,000 in a
    /// second — so there each producer sends 5,000: still thousands of waits and hand-overs per round, which is what
    /// the sanitizer needs to see.
    @Test
    func fourProducersThroughSixtyFourSlotsLoseNothingAndKeepTheirOrder() async throws {
        let perProducer = mainline_is_thread_sanitized() != 0 ? 5_000 : 100_000
        for round in 1...3 {
            let loop = TestLoop()
            let mailbox = BoundedMailbox<Int>(capacity: 64, overflow: .suspend, loop: loop)
            let order = OrderCheck()
            var token: SimpleEventToken?
            mailbox.event.addObserver(&token) { _ in
                for value in mailbox.takeAll() { order.receive(producer: value >> 32, sequence: value & 0xFFFF_FFFF) }
            }
            let finished = _Locked(0)
            let producers = (0..<4).map { producer in
                Task.detached {
                    for sequence in 0..<perProducer { try await mailbox.send(producer << 32 | sequence) }
                    finished.withLock { $0 += 1 }
                }
            }
            // Stepping the loop until the producers are done; at the time limit (a broken mailbox), stop and fail.
            let done = await withTaskCancellationHandler {
                await loop.run(until: { finished.withLock { $0 } == 4 || Task.isCancelled }, attempts: 50_000_000)
            } onCancel: {
                for producer in producers { producer.cancel() }
            }
            #expect(done && !Task.isCancelled, "round \(round)")
            await loop.runUntilIdle()
            let counts = mailbox.counts
            #expect(counts == MailboxCounts(accepted: 4 * perProducer, delivered: 4 * perProducer), "round \(round)")
            #expect(order.received == 4 * perProducer)
            #expect(order.violations == 0)
            #expect(order.lastReceived == Array(repeating: perProducer - 1, count: 4))
            _ = token
        }
    }
}
