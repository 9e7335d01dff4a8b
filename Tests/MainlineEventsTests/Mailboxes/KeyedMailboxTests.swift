import MainlineEvents
import MainlineLoop
import MainlineTesting
import Testing

/// `KeyedMailbox`: the latest value per key, in first-placed key order.
@MainActor
@Suite("KeyedMailbox")
struct KeyedMailboxTests {
    @Test func theLatestValuePerKeyInFirstPlacedKeyOrder() {
        let loop = TestLoop()
        let mailbox = KeyedMailbox<String, Int>(loop: loop)
        mailbox.place(key: "b", value: 1)
        mailbox.place(key: "a", value: 2)
        mailbox.place(key: "b", value: 3)
        mailbox.place(key: "c", value: 4)
        let taken = mailbox.takeAll()
        #expect(taken.map(\.key) == ["b", "a", "c"])
        #expect(taken.map(\.value) == [3, 2, 4])
        #expect(mailbox.counts == MailboxCounts(accepted: 4, dropped: 1, delivered: 3))
        #expect(mailbox.takeAll().isEmpty)
        mailbox.place(key: "a", value: 5)
        mailbox.place(key: "b", value: 6)
        #expect(mailbox.takeAll().map(\.key) == ["a", "b"], "the order starts afresh after a take")
    }

    @Test func fourProducersKeepTheirLatestValuesAndCountTheRest() async {
        let loop = TestLoop()
        let mailbox = KeyedMailbox<Int, Int>(loop: loop)
        let order = OrderCheck()
        var deliveries = 0
        var token: SimpleEventToken?
        mailbox.event.addObserver(&token) { _ in
            deliveries += 1
            for (key, value) in mailbox.takeAll() { order.receive(producer: key, sequence: value) }
        }
        let wakeUps = await flood(loop: loop) { mailbox.place(key: $0, value: $1) }
        let counts = mailbox.counts
        #expect(counts.accepted == floodTotal)
        #expect(counts.delivered + counts.dropped == floodTotal)
        #expect(counts.delivered == order.received)
        #expect(order.violations == 0, "per key, values only move forward")
        #expect(order.lastReceived == floodLastSequences)
        #expect(wakeUps == deliveries)
        _ = token
    }
}
