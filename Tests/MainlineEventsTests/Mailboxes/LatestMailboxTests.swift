import MainlineEvents
import MainlineLoop
import MainlineTesting
import Testing

/// `LatestMailbox`: the latest value wins, every replaced value is counted as dropped.
@MainActor
@Suite("LatestMailbox")
struct LatestMailboxTests {
    @Test func placeSaysItAcceptedEveryValueAsEveryThreadSafeMailboxDoes() {
        let loop = TestLoop()
        let latest = LatestMailbox<Int>(loop: loop)
        let keyed = KeyedMailbox<String, Int>(loop: loop)
        #expect(latest.place(1))
        #expect(latest.place(2), "replacing is accepting: the replaced value is counted as dropped")
        #expect(keyed.place(key: "a", value: 1))
        #expect(keyed.place(key: "a", value: 2))
        #expect(latest.counts.dropped == 1)
        #expect(keyed.counts.dropped == 1)
    }

    @Test func theLoopTakesTheLatestValueAndDroppedOnesAreCounted() {
        let loop = TestLoop()
        let mailbox = LatestMailbox<Int>(loop: loop)
        var taken: [Int] = []
        var token: SimpleEventToken?
        mailbox.event.addObserver(&token) { _ in
            if let value = mailbox.take() { taken.append(value) }
        }
        for value in 1...3 { mailbox.place(value) }
        #expect(mailbox.counts == MailboxCounts(accepted: 3, dropped: 2))
        #expect(mailbox.counts.pending == 1)
        loop.runUntilIdle()
        #expect(taken == [3])
        #expect(mailbox.counts == MailboxCounts(accepted: 3, dropped: 2, delivered: 1))
        #expect(mailbox.take() == nil, "taken already")
        #expect(mailbox.counts.delivered == 1, "an empty take delivers nothing")
        mailbox.place(4)
        loop.runUntilIdle()
        #expect(taken == [3, 4])
        _ = token
    }

    @Test func fourProducersLoseNothingUncountedKeepTheirOrderAndWakeTheLoopOncePerDelivery() async {
        let loop = TestLoop()
        let mailbox = LatestMailbox<(producer: Int, sequence: Int)>(loop: loop)
        let order = OrderCheck()
        var deliveries = 0
        var token: SimpleEventToken?
        mailbox.event.addObserver(&token) { _ in
            deliveries += 1
            if let value = mailbox.take() { order.receive(producer: value.producer, sequence: value.sequence) }
        }
        let wakeUps = await flood(loop: loop) { mailbox.place((producer: $0, sequence: $1)) }
        let counts = mailbox.counts
        #expect(counts.accepted == floodTotal)
        #expect(counts.delivered + counts.dropped == counts.accepted, "nothing lost without being counted")
        #expect(counts.pending == 0)
        #expect(counts.delivered == order.received)
        #expect(order.violations == 0, "a producer's values arrive in the order it placed them")
        #expect(order.lastReceived.contains(floodPerProducer - 1), "the very last value placed is delivered")
        #expect(wakeUps == deliveries, "every wake-up is one delivery: none wasted, none per put")
        #expect(wakeUps < floodTotal)
        _ = token
    }
}

extension LatestMailboxTests {
    @Test func aFloodFromFourThreadsWhileTheLoopIsBusyWakesItOnce() async {
        let loop = TestLoop()
        let mailbox = LatestMailbox<Int>(loop: loop)
        var taken: [Int] = []
        var token: SimpleEventToken?
        mailbox.event.addObserver(&token) { _ in taken.append(mailbox.take()!) }
        let postsBefore = loop.postsRun
        let requestsBefore = loop.settleRequestsFromOtherThreads
        // The loop is not stepped while the producers run, as a loop busy with a long callback would not be.
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<4 {
                group.addTask { @Sendable in
                    for sequence in 0..<floodPerProducer { mailbox.place(producer * floodPerProducer + sequence) }
                }
            }
        }
        await loop.runUntilIdle()
        #expect(loop.settleRequestsFromOtherThreads - requestsBefore == 1, "\(floodTotal) puts, one wake-up")
        #expect(loop.postsRun == postsBefore, "no posted job: the request reaches settle directly")
        #expect(taken.count == 1)
        #expect(mailbox.counts == MailboxCounts(accepted: floodTotal, dropped: floodTotal - 1, delivered: 1))
        _ = token
    }
}
