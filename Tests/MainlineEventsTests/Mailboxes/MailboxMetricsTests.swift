import MainlineEvents
import MainlineLoop
import MainlineTesting
import MetricsTestKit
import Testing

/// Named mailboxes report their drops through their loop's instrumentation; unnamed ones cost nothing.
@MainActor
@Suite("Mailbox metrics")
struct MailboxMetricsTests {
    let loop = TestLoop()
    let metrics = TestMetrics()

    init() {
        loop.instrument(LoopInstrumentation(metricsFactory: metrics))
    }

    func drops(_ name: String) throws -> TestCounter {
        try metrics.expectCounter(LoopMetricName.mailboxDrops, [("mailbox", name)])
    }

    @Test func aNamedMailboxReportsItsDropsWithItsNameAsDimension() throws {
        let quotes = LatestMailbox<Int>(loop: loop, name: "quotes")
        let jobs = BoundedMailbox<Int>(capacity: 2, overflow: .dropOldest, loop: loop, name: "jobs")
        let prices = KeyedMailbox<String, Int>(loop: loop, name: "prices")
        #expect(quotes.name == "quotes")
        for value in 1...3 { quotes.place(value) }
        for value in 1...5 { jobs.place(value) }
        for value in 1...4 { prices.place(key: "ACME", value: value) }
        loop.runUntilIdle()
        #expect(try drops("quotes").totalValue == 2)
        #expect(try drops("jobs").totalValue == 3)
        #expect(try drops("prices").totalValue == 3)
        #expect(quotes.take() == 3)
        quotes.place(4)
        quotes.place(5)
        loop.runUntilIdle()
        #expect(try drops("quotes").values == [2, 1], "only what was dropped since the last report")
    }

    @Test func dropsBeforeTheLoopWasInstrumentedAreReportedAtItsFirstReport() throws {
        let loop = TestLoop()
        let quotes = LatestMailbox<Int>(loop: loop, name: "quotes")
        for value in 1...3 { quotes.place(value) }
        loop.runUntilIdle()
        loop.instrument(LoopInstrumentation(metricsFactory: metrics))
        loop.post {}
        loop.runIteration()
        #expect(try drops("quotes").totalValue == 2)
    }

    @Test func anUnnamedMailboxReportsNothing() {
        let quotes = LatestMailbox<Int>(loop: loop)
        for value in 1...3 { quotes.place(value) }
        loop.runUntilIdle()
        #expect(quotes.counts.dropped == 2)
        #expect(metrics.counters(label: LoopMetricName.mailboxDrops).isEmpty)
    }

    @Test func aMailboxThatIsGoneStopsBeingRead() throws {
        var quotes: LatestMailbox<Int>? = LatestMailbox<Int>(loop: loop, name: "quotes")
        quotes?.place(1)
        quotes?.place(2)
        loop.runUntilIdle()
        quotes = nil
        loop.post {}
        loop.runIteration()
        #expect(try drops("quotes").values == [1])
    }
}
