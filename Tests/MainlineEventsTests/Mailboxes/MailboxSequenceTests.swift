import MainlineLoop
import MainlineTesting
import Testing

@testable import MainlineEvents

/// `values` on `BoundedMailbox` and `LatestMailbox`, `batches` on `KeyedMailbox`: pulled with `take()`/`takeAll()`,
/// buffering nothing, finishing when the mailbox is freed or the task is cancelled.
@MainActor
@Suite("Mailbox sequences")
struct MailboxSequenceTests {
    // MARK: BoundedMailbox.values

    @Test func boundedValuesArriveInOrderOneElementPerValue() async {
        let loop = TestLoop()
        let mailbox = BoundedMailbox<Int>(capacity: 10, overflow: .reject, loop: loop)
        for value in 1...3 { mailbox.place(value) }  // before the sequence exists: they wait in the mailbox
        let consumer = Consumer(mailbox.values)
        #expect(await loop.run(until: { consumer.count == 3 }))
        for value in 4...6 { mailbox.place(value) }  // while the consumer waits: one delivery, three elements
        #expect(await loop.run(until: { consumer.count == 6 }))
        #expect(consumer.elements == Array(1...6))
        #expect(mailbox.counts == MailboxCounts(accepted: 6, delivered: 6))
        consumer.task?.cancel()
        #expect(await loop.run(until: { consumer.finished }))
    }

    @Test func boundedValuesWaitInTheMailboxSoItsCapacityAndPolicyStillHold() async {
        let loop = TestLoop()
        let mailbox = BoundedMailbox<Int>(capacity: 2, overflow: .dropOldest, loop: loop)
        let values = mailbox.values
        for value in 1...5 { mailbox.place(value) }  // nobody iterates yet: the sequence holds none of them
        await loop.runUntilIdle()
        #expect(mailbox.counts == MailboxCounts(accepted: 5, dropped: 3), "the sequence took nothing on its own")
        let consumer = Consumer(values)
        #expect(await loop.run(until: { consumer.count == 2 }))
        #expect(consumer.elements == [4, 5])
        consumer.task?.cancel()
        #expect(await loop.run(until: { consumer.finished }))
    }

    // MARK: LatestMailbox.values

    @Test func latestValuesAreTheLatestValueEachTimeTheConsumerAsks() async {
        let loop = TestLoop()
        let mailbox = LatestMailbox<Int>(loop: loop)
        let consumer = Consumer(mailbox.values)
        #expect(await loop.run(until: { consumer.started }))
        for value in 1...3 { mailbox.place(value) }
        #expect(await loop.run(until: { consumer.count == 1 }))
        mailbox.place(4)
        #expect(await loop.run(until: { consumer.count == 2 }))
        #expect(consumer.elements == [3, 4])
        #expect(mailbox.counts == MailboxCounts(accepted: 4, dropped: 2, delivered: 2))
        consumer.task?.cancel()
        #expect(await loop.run(until: { consumer.finished }))
    }

    // MARK: KeyedMailbox.batches

    @Test func keyedBatchesAreWhatTakeAllReturnsOnePerDeliveryNeverEmpty() async {
        let loop = TestLoop()
        let mailbox = KeyedMailbox<String, Int>(loop: loop)
        let consumer = Consumer(mailbox.batches, limit: 3)
        #expect(await loop.run(until: { consumer.started }))
        mailbox.place(key: "a", value: 1)
        mailbox.place(key: "b", value: 2)
        mailbox.place(key: "a", value: 3)
        #expect(await loop.run(until: { consumer.count == 1 }))
        mailbox.place(key: "c", value: 4)
        #expect(await loop.run(until: { consumer.count == 2 }))
        // A spurious wake-up (a delivery whose value was taken already) yields nothing: no empty batch.
        for _ in 0..<3 {
            mailbox.place(key: "d", value: 5)
            _ = mailbox.takeAll()
            await loop.runUntilIdle()
        }
        mailbox.place(key: "e", value: 6)
        #expect(await loop.run(until: { consumer.count == 3 }))
        let batches = consumer.elements.map { $0.map { "\($0.key)\($0.value)" } }
        #expect(batches == [["a3", "b2"], ["c4"], ["e6"]])
        consumer.task?.cancel()
        #expect(await loop.run(until: { consumer.finished }))
    }

    // MARK: Finishing

    @Test(arguments: FreedMailbox.allCases)
    func finishesWhenTheMailboxIsFreed(_ kind: FreedMailbox) async {
        let loop = TestLoop()
        var mailbox: AnyObject? = nil
        let consumer = kind.consume(loop: loop, keeping: &mailbox)
        #expect(await loop.run(until: { consumer() == .waiting }))
        weak let weakMailbox = mailbox
        mailbox = nil
        #expect(weakMailbox == nil, "the sequence holds its mailbox weakly")
        #expect(await loop.run(until: { consumer() == .finished }, attempts: 1_000))
    }

    @Test func finishesWhenTheLastReferenceGoesOnAnotherThread() async {
        let loop = TestLoop()
        var mailbox: BoundedMailbox<Int>? = BoundedMailbox(capacity: 4, overflow: .reject, loop: loop)
        let consumer = Consumer(mailbox!.values)
        #expect(await loop.run(until: { consumer.started }))
        let producer = _Locked(mailbox)
        mailbox = nil
        // The producer owns the last reference and drops it on a pool thread: the mailbox, and so its event, is freed
        // there; the event's isolated deinit tells the sequence on the main actor.
        await Task.detached {
            producer.withLock { mailbox in
                _ = mailbox?.place(1)
                mailbox = nil
            }
        }.value
        #expect(await loop.run(until: { consumer.finished }, attempts: 10_000))
        #expect(consumer.elements.allSatisfy { $0 == 1 })
    }

    @Test func cancellingTheConsumerEndsItAndLeavesTheValuesInTheMailbox() async {
        let loop = TestLoop()
        let mailbox = BoundedMailbox<Int>(capacity: 10, overflow: .reject, loop: loop)
        let values = mailbox.values
        let consumer = Consumer(values)
        #expect(await loop.run(until: { consumer.started }))
        consumer.task?.cancel()
        #expect(await loop.run(until: { consumer.finished }, attempts: 1_000))
        #expect(!values.wakeups.isObserving, "its observer is removed")
        mailbox.place(7)
        await loop.runUntilIdle()
        #expect(consumer.count == 0)
        #expect(mailbox.counts.pending == 1, "not lost: still in the mailbox, for whoever takes it")
        #expect(mailbox.take() == 7)
    }

    // MARK: Two consumers

    @Test func twoConsumersSplitTheValuesAndNoneIsDeliveredTwice() async {
        let loop = TestLoop()
        let mailbox = BoundedMailbox<Int>(capacity: 100, overflow: .reject, loop: loop)
        let first = Consumer(mailbox.values)
        let second = Consumer(mailbox.values)
        #expect(await loop.run(until: { first.started && second.started }))
        for value in 1...20 { mailbox.place(value) }
        #expect(await loop.run(until: { first.count + second.count == 20 }))
        #expect((first.elements + second.elements).sorted() == Array(1...20))
        #expect(first.elements == first.elements.sorted() && second.elements == second.elements.sorted())
        first.task?.cancel()
        second.task?.cancel()
        #expect(await loop.run(until: { first.finished && second.finished }))
    }

    @Test func aConsumerOffTheMainActorGetsEveryValueInOrder() async {
        let loop = TestLoop()
        let mailbox = BoundedMailbox<Int>(capacity: 100, overflow: .reject, loop: loop)
        let values = mailbox.values
        let task = Task.detached {
            var received: [Int] = []
            for await value in values {
                received.append(value)
                if received.count == 50 { break }
            }
            return received
        }
        for value in 1...50 { mailbox.place(value) }
        let done = _Locked(false)
        let watcher = Task.detached {
            _ = await task.value; done.withLock { $0 = true }
        }
        let finished = await loop.run(until: { done.withLock { $0 } })
        task.cancel()  // so that a failure ends the test instead of hanging it
        #expect(finished)
        #expect(await task.value == Array(1...50))
        _ = await watcher.value
    }
}

/// The mailboxes with a sequence, each freed by the test.
enum FreedMailbox: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case bounded, latest, keyed

    var testDescription: String { rawValue }

    enum State { case starting, waiting, finished }

    /// Makes a mailbox (kept only in `mailbox`), starts a consumer of its sequence, and returns how the consumer is.
    @MainActor
    func consume(loop: TestLoop, keeping mailbox: inout AnyObject?) -> @MainActor () -> State {
        switch self {
        case .bounded:
            let made = BoundedMailbox<Int>(capacity: 1, overflow: .reject, loop: loop)
            mailbox = made
            return Self.state(Consumer(made.values))
        case .latest:
            let made = LatestMailbox<Int>(loop: loop)
            mailbox = made
            return Self.state(Consumer(made.values))
        case .keyed:
            let made = KeyedMailbox<Int, Int>(loop: loop)
            mailbox = made
            return Self.state(Consumer(made.batches))
        }
    }

    @MainActor
    private static func state<E>(_ consumer: Consumer<E>) -> @MainActor () -> State {
        { consumer.finished ? .finished : consumer.started ? .waiting : .starting }
    }
}
