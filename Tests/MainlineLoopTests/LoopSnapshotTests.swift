import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

@Suite("LoopSnapshot")
struct LoopSnapshotTests {
    @Test func theDescriptionShowsOverdueTimersSkippedFiringsAndEveryCounter() {
        let snapshot = LoopSnapshot(
            loop: "EventLoop(io)",
            state: .stopping,
            now: .zero + .milliseconds(12_345),
            phase: .timers,
            pendingPosts: 7,
            pendingSettleNotifications: 2,
            timers: [
                LoopSnapshot.Timer(label: "late", deadline: .zero + .milliseconds(12_245)),
                LoopSnapshot.Timer(
                    label: "poll",
                    deadline: .zero + .milliseconds(12_346),
                    interval: .milliseconds(250),
                    firings: 40,
                    skippedFirings: 3
                ),
                LoopSnapshot.Timer(label: nil, deadline: .zero + .seconds(3_612)),
            ],
            counters: LoopSnapshot.Counters(
                iterations: 41,
                postsRun: 1_000,
                postsRejected: 5,
                postsDiscarded: 6,
                timersFired: 43,
                settleDeliveries: 9
            )
        )
        #expect(
            snapshot.description == """
                EventLoop(io): stopping, iteration 42 (timers), now 12.345 s
                  posts: 7 pending, 1000 run, 5 rejected, 6 discarded
                  settle: 2 pending, 9 delivered
                  timers: 3 scheduled, 43 fired
                    overdue 0.100 s  late
                    in 0.001 s  poll  every 0.250 s, fired 40, skipped 3
                    in 3599.655 s
                """
        )
    }

    @Test func secondsAreTruncatedToTheMillisecondWithThreeDecimals() {
        #expect(LoopSnapshot.seconds(0) == "0.000 s")
        #expect(LoopSnapshot.seconds(999_999) == "0.000 s")
        #expect(LoopSnapshot.seconds(1_000_000) == "0.001 s")
        #expect(LoopSnapshot.seconds(1_250_000_000) == "1.250 s")
        #expect(LoopSnapshot.seconds(60_010_000_000) == "60.010 s")
        #expect(LoopSnapshot.seconds(-1_500_000_000) == "-1.500 s")
    }

    @Test func everyMainLoopStateHasASnapshotStateOfTheSameName() {
        let states: [MainLoop.State] = [.idle, .guest, .owner, .stopping, .stopped]
        for state in states {
            #expect(LoopSnapshot.State(state).description == state.description)
        }
    }

    @Test func phasesSurviveTheByteAnEventLoopPublishesThemIn() {
        let phases: [LoopSnapshot.Phase] = [.waiting, .timers, .posts, .settle, .stopping, .stopped]
        #expect(phases.map { LoopSnapshot.Phase(code: $0.code) } == phases)
    }

    @Test func aLoopWithoutBooksReportsItsClockOnly() async {
        let loop: any Loop = ExternalLoop(now: .zero + .seconds(5))
        #expect(await loop.snapshot() == LoopSnapshot(loop: "ExternalLoop", state: .running, now: .zero + .seconds(5)))
    }
}
