import MainlineEvents
import MainlineLoop
import MainlineTesting
import Testing

/// `BoundedMailbox`: FIFO up to a capacity, each overflow policy, and the counts that show nothing was lost.
@MainActor
@Suite("BoundedMailbox")
struct BoundedMailboxTests {
    @Test func valuesComeOutFirstInFirstOut() {
        let loop = TestLoop()
        let mailbox = BoundedMailbox<Int>(capacity: 4, overflow: .reject, loop: loop)
        for value in 1...3 { #expect(mailbox.place(value)) }
        #expect(mailbox.take() == 1)
        #expect(mailbox.takeAll() == [2, 3])
        #expect(mailbox.take() == nil)
        #expect(mailbox.counts == MailboxCounts(accepted: 3, delivered: 3))
    }

    @Test func rejectRefusesTheNewValueWhenFull() {
        let loop = TestLoop()
        let mailbox = BoundedMailbox<Int>(capacity: 2, overflow: .reject, loop: loop)
        #expect(mailbox.place(1))
        #expect(mailbox.place(2))
        #expect(!mailbox.place(3))
        #expect(mailbox.takeAll() == [1, 2])
        #expect(mailbox.counts == MailboxCounts(accepted: 2, rejected: 1, delivered: 2))
        #expect(mailbox.place(4), "room again")
    }

    @Test func dropNewestKeepsWhatWaitsAndCountsTheNewValueAsDropped() {
        let loop = TestLoop()
        let mailbox = BoundedMailbox<Int>(capacity: 2, overflow: .dropNewest, loop: loop)
        for value in 1...4 { #expect(mailbox.place(value)) }
        #expect(mailbox.takeAll() == [1, 2])
        #expect(mailbox.counts == MailboxCounts(accepted: 4, dropped: 2, delivered: 2))
    }

    @Test func dropOldestMakesRoomForTheNewValue() {
        let loop = TestLoop()
        let mailbox = BoundedMailbox<Int>(capacity: 2, overflow: .dropOldest, loop: loop)
        for value in 1...5 { #expect(mailbox.place(value)) }
        #expect(mailbox.takeAll() == [4, 5])
        #expect(mailbox.counts == MailboxCounts(accepted: 5, dropped: 3, delivered: 2))
        // Wrapping around the ring keeps FIFO order.
        for value in 6...8 { mailbox.place(value) }
        #expect(mailbox.take() == 7)
        mailbox.place(9)
        #expect(mailbox.takeAll() == [8, 9])
    }

    @Test func aCapacityBelowOneIsReportedAndTreatedAsOne() {
        let loop = TestLoop()
        let diagnostics = DiagnosticsRecorder()
        let mailbox = diagnostics.record { BoundedMailbox<Int>(capacity: 0, overflow: .reject, loop: loop) }
        #expect(diagnostics.kinds == [.mailboxCapacity])
        #expect(mailbox.capacity == 1)
        #expect(mailbox.place(1))
        #expect(!mailbox.place(2))
    }

    @Test func theEventWakesTheConsumerOncePerBurst() {
        let loop = TestLoop()
        let mailbox = BoundedMailbox<Int>(capacity: 100, overflow: .reject, loop: loop)
        var batches: [[Int]] = []
        var token: SimpleEventToken?
        mailbox.event.addObserver(&token) { _ in batches.append(mailbox.takeAll()) }
        for value in 1...10 { mailbox.place(value) }
        loop.runUntilIdle()
        #expect(batches == [Array(1...10)])
        _ = token
    }

    /// 4 producers × 100,000 puts into a small mailbox, with the consumer draining concurrently.
    func floodThrough(
        _ policy: BoundedMailbox<Int>.OverflowPolicy,
        retryRejected: Bool
    ) async -> (
        counts: MailboxCounts, order: OrderCheck, wakeUps: Int, deliveries: Int
    ) {
        let loop = TestLoop()
        let mailbox = BoundedMailbox<Int>(capacity: 64, overflow: policy, loop: loop)
        let order = OrderCheck()
        var deliveries = 0
        var token: SimpleEventToken?
        mailbox.event.addObserver(&token) { _ in
            deliveries += 1
            for value in mailbox.takeAll() { order.receive(producer: value >> 32, sequence: value & 0xFFFF_FFFF) }
        }
        let wakeUps = await flood(loop: loop) { producer, sequence in
            while !mailbox.place(producer << 32 | sequence) && retryRejected {}
        }
        token = nil
        return (mailbox.counts, order, wakeUps, deliveries)
    }

    @Test func rejectWithRetryDeliversEveryValueOnceInProducerOrder() async {
        let (counts, order, wakeUps, deliveries) = await floodThrough(.reject, retryRejected: true)
        #expect(counts.accepted == floodTotal)
        #expect(counts.delivered == floodTotal)
        #expect(counts.dropped == 0)
        #expect(order.received == floodTotal)
        #expect(order.violations == 0)
        #expect(order.lastReceived == floodLastSequences)
        #expect(wakeUps == deliveries)
    }

    @Test func dropOldestAndDropNewestCountEveryValueTheyDoNotDeliverAndKeepProducerOrder() async {
        for policy: BoundedMailbox<Int>.OverflowPolicy in [.dropOldest, .dropNewest] {
            let (counts, order, wakeUps, deliveries) = await floodThrough(policy, retryRejected: false)
            #expect(counts.accepted == floodTotal, "\(policy)")
            #expect(counts.rejected == 0)
            #expect(counts.delivered + counts.dropped == floodTotal, "\(policy): nothing lost without being counted")
            #expect(order.received == counts.delivered)
            #expect(order.violations == 0, "\(policy)")
            #expect(wakeUps == deliveries)
        }
    }

    @Test func rejectWithoutRetryCountsEveryRefusal() async {
        let (counts, order, _, _) = await floodThrough(.reject, retryRejected: false)
        #expect(counts.accepted + counts.rejected == floodTotal)
        #expect(counts.delivered == counts.accepted)
        #expect(order.violations == 0)
    }
}
