import MainlineInspectorSchema
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

    @Test func theSummaryOfASnapshotCarriesEveryValueItsDescriptionShows() {
        let site = LoopSite(label: "poll")
        let snapshot = LoopSnapshot(
            loop: "EventLoop(io)",
            state: .running,
            now: .zero + .nanoseconds(12_345_678_901),
            phase: .posts,
            pendingPosts: 3,
            pendingSettleNotifications: 2,
            pendingIdleBodies: 1,
            timers: [
                LoopSnapshot.Timer(label: nil, deadline: .zero + .nanoseconds(12_345_678_400)),
                LoopSnapshot.Timer(
                    label: "poll",
                    site: site,
                    deadline: .zero + .seconds(13),
                    interval: .milliseconds(250),
                    firings: 40,
                    skippedFirings: 3
                ),
            ],
            counters: LoopSnapshot.Counters(
                iterations: 9,
                postsRun: 8,
                postsRejected: 7,
                postsDiscarded: 6,
                timersFired: 5,
                settleDeliveries: 4
            )
        )
        var expected = LoopSummary(name: "io", kind: "EventLoop", state: "running")
        expected.phase = "posts"
        expected.iterations = 9
        expected.nowMs = 12_345.678
        expected.postsRun = 8
        expected.postsPending = 3
        expected.postsRejected = 7
        expected.postsDiscarded = 6
        expected.timersFired = 5
        expected.settleDeliveries = 4
        expected.settlePending = 2
        expected.idlePending = 1
        expected.timersScheduled = 2
        expected.timers = [
            // Due 501 ns ago: still negative, to the microsecond.
            LoopSummary.Timer(site: nil, label: nil, dueInMs: -0.001, repeating: false, firings: 0, skippedFirings: 0),
            LoopSummary.Timer(
                site: site.location,
                label: "poll",
                dueInMs: 654.321,
                repeating: true,
                firings: 40,
                intervalMs: 250,
                skippedFirings: 3
            ),
        ]
        expected.pendingPostsBySite = []
        #expect(LoopSummary(snapshot) == expected)
        #expect(snapshot.description == expected.description)
        #expect(snapshot.description.contains("\n    overdue 0.000 s\n"))
    }

    @Test func aLoopNamedByItsKindAloneHasNoName() {
        let summary = LoopSummary(LoopSnapshot(loop: "TestLoop", state: .running, now: .zero))
        #expect(summary.kind == "TestLoop")
        #expect(summary.name == nil)
        #expect(summary.description.hasPrefix("TestLoop: running, iteration 1 (waiting), now 0.000 s\n"))
    }

    @Test func secondsAreTruncatedToTheMillisecondWithThreeDecimals() {
        #expect(LoopSummary.seconds(milliseconds: 0) == "0.000 s")
        #expect(LoopSummary.seconds(milliseconds: 0.999_999) == "0.000 s")
        #expect(LoopSummary.seconds(milliseconds: 1) == "0.001 s")
        #expect(LoopSummary.seconds(milliseconds: 1_250) == "1.250 s")
        #expect(LoopSummary.seconds(milliseconds: 60_010) == "60.010 s")
        #expect(LoopSummary.seconds(milliseconds: -1_500) == "-1.500 s")
    }

    @Test func aDurationADocumentDoesNotCarryOrThatIsNoTimeReadsAsADash() {
        #expect(LoopSummary.seconds(milliseconds: nil) == "- s")
        #expect(LoopSummary.seconds(milliseconds: .infinity) == "- s")
        #expect(LoopSummary.seconds(milliseconds: .nan) == "- s")
        #expect(LoopSummary.seconds(milliseconds: 1e30) == "- s")
    }

    @Test func theDescriptionListsTheSoonestFiftyTimersAndSaysHowManyMoreThereAre() {
        let timers = (0..<53).map { LoopSnapshot.Timer(label: "t\($0)", deadline: .zero + .seconds($0)) }
        let lines = LoopSnapshot(loop: "TestLoop", state: .running, now: .zero, timers: timers).description
            .split(separator: "\n").map(String.init)
        #expect(lines.contains("  timers: 53 scheduled, 0 fired"))
        #expect(lines.filter { $0.hasPrefix("    in ") }.count == 50)
        #expect(lines[lines.count - 2] == "    in 49.000 s  t49")
        #expect(lines.last == "    … 3 more not shown")
    }

    @Test func fiftyTimersAreListedWithoutALineAboutMore() {
        let timers = (0..<50).map { LoopSnapshot.Timer(label: nil, deadline: .zero + .seconds($0)) }
        let description = LoopSnapshot(loop: "TestLoop", state: .running, now: .zero, timers: timers).description
        #expect(description.hasSuffix("\n    in 49.000 s"))
        #expect(!description.contains("more not shown"))
    }

    @Test func aSummaryOfAnOlderDocumentShowsWhatItCarriesAndADashForTheRest() throws {
        // A loop as an inspector of an earlier schema-1 version served it: none of the snapshot's newer fields.
        let document =
            #"{"name":"io","kind":"EventLoop","state":"running","phase":"waiting","iterations":4,"#
            + #""postsRun":9,"postsPending":0,"postsRejected":0,"timersFired":2,"#
            + #""timers":[{"site":"App/Poll.swift:3","label":null,"dueInMs":-2.5,"repeating":true,"firings":2}]}"#
        let summary = try InspectorJSON.decode(LoopSummary.self, from: document.utf8)
        #expect(
            summary.description == """
                EventLoop(io): running, iteration 5 (waiting), now - s
                  posts: 0 pending, 9 run, 0 rejected, - discarded
                  settle: - pending, - delivered
                  timers: 1 scheduled, 2 fired
                    overdue 0.002 s  repeating, fired 2  at App/Poll.swift:3
                """
        )
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
