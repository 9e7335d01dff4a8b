import Foundation
import MainlineInspectorSchema
import Testing

@testable import mainline_console

/// What each of the console's views shows for a snapshot, line by line; and that a document missing fields, or with
/// fields of other types, still shows what it has.
@Suite("mainline-console views")
struct ConsoleViewsTests {
    static func snapshot(_ json: String) throws -> InspectorSnapshot {
        try InspectorJSON.decode(InspectorSnapshot.self, from: json.utf8)
    }

    @Test func theOverviewShowsEachLoopsCountersRunningJobLastStallAndDelayHistogram() throws {
        var rates = IterationRates()
        rates.add(try Self.snapshot(SnapshotFixtures.snapshot(iterations: 1_000, uptimeSeconds: 10)), fallbackTime: 0)
        let later = try Self.snapshot(SnapshotFixtures.snapshot(iterations: 1_250, uptimeSeconds: 10.5))
        rates.add(later, fallbackTime: 0)

        #expect(
            OverviewView.lines(later, rates: rates) == [
                "loop main  MainLoop  running",
                "  iterations 1250  500.0/s  busy 12.5%",
                "  posts run 300 (pending 2)  timers fired 40  settle deliveries 7",
                "  running now: App/Workers.swift:42 for 12.0 ms",
                "  stalls: 1, the last 1.2 s at App/Stall.swift:7 \"stall on purpose\"",
                "  loop delay  p50 0.02 ms  p99 1.20 ms  max 3.10 ms  (200 samples)",
                "    <= 0.016 ms |########################################| 160",
                "    <= 1.024 ms |#########                               | 36",
                "    <= 4.096 ms |#                                       | 4",
            ]
        )
    }

    @Test func theHistogramLeavesOutTheEmptyBucketsAboveAndBelowButNotBetween() {
        let buckets = [(0.001, 0), (0.002, 4), (0.004, 0), (0.008, 2), (0.016, 0), (nil, 0)]
        let delay = LoopSummary.Delay(
            p50Ms: nil,
            p99Ms: nil,
            maxMs: nil,
            samples: nil,
            buckets: buckets.map { LoopSummary.Bucket(upToMs: $0.0, count: $0.1) }
        )
        #expect(
            OverviewView.histogram(delay) == [
                "    <= 0.002 ms |########################################| 4",
                "    <= 0.004 ms |                                        | 0",
                "    <= 0.008 ms |####################                    | 2",
            ]
        )
        let empty = LoopSummary.Delay(
            p50Ms: nil,
            p99Ms: nil,
            maxMs: nil,
            samples: nil,
            buckets: [.init(upToMs: nil, count: 0)]
        )
        #expect(OverviewView.histogram(empty) == [])
    }

    @Test func iterationsPerSecondNeedTwoSamplesOfTheSameLoop() throws {
        var rates = IterationRates()
        let first = try Self.snapshot(SnapshotFixtures.snapshot())
        rates.add(first, fallbackTime: 0)
        #expect(rates.rate(of: first.loops[0]) == nil)
        #expect(OverviewView.lines(first, rates: rates)[1] == "  iterations 1000  …/s  busy 12.5%")
        // The process restarted (fewer iterations): no rate from a sample of the process before.
        let restarted = try Self.snapshot(SnapshotFixtures.snapshot(iterations: 10, uptimeSeconds: 0.5))
        rates.add(restarted, fallbackTime: 0)
        #expect(rates.rate(of: restarted.loops[0]) == nil)
    }

    @Test func theSlowestJobsAreGroupedBySiteSlowestFirst() throws {
        #expect(
            SlowestJobsView.lines(try Self.snapshot(SnapshotFixtures.snapshot())) == [
                "SLOWEST  TIMES  LAST          LOOP  KIND   SITE",
                "5.5 ms   2      50.0 ms ago   main  post   App/File.swift:12 \"fetch\"",
                "2.0 ms   1      400.0 ms ago  main  timer  App/Tick.swift:3",
            ]
        )
    }

    @Test func theMailboxesShowDepthCapacityAndDrops() throws {
        #expect(
            MailboxesView.lines(try Self.snapshot(SnapshotFixtures.snapshot())) == [
                "NAME       KIND     DEPTH  CAPACITY   DROPPED  COALESCED",
                "jobs       bounded  3      64         5        0",
                "(unnamed)  keyed    1      unbounded  9        9",
            ]
        )
    }

    @Test func theViewModelsAreCountedByStateAndTheCoordinatorsShowTheirStacks() throws {
        #expect(
            ViewModelsView.lines(try Self.snapshot(SnapshotFixtures.snapshot())) == [
                "view models: 3 (1 paused, 2 resumed)",
                "TYPE             STATE    ID",
                "ClientViewModel  resumed  1",
                "ClientViewModel  paused   2",
                "DeskViewModel    resumed  3",
                "",
                "coordinators: 2",
                "TYPE               STATE    ID  STACK",
                "SignUpCoordinator  running  4   email > PasswordCoordinator (child)",
                "NavigationStack    -        5   home > email (SignUpCoordinator)",
            ]
        )
    }

    @Test func theTimersAreListedSoonestFirst() throws {
        #expect(
            TimersView.lines(try Self.snapshot(SnapshotFixtures.snapshot())) == [
                "DUE IN    REPEATS  LOOP  SITE",
                "250.0 ms  yes      main  App/Tick.swift:3 \"tick\"",
                "30 s      no       main  App/Expiry.swift:9",
            ]
        )
    }

    @Test func aRepeatingTimersPeriodIsShownAndTimersBeyondTheListAreCounted() throws {
        let document = try Self.snapshot(
            #"{"schema":1,"loops":[{"name":"io","timersScheduled":53,"timers":["#
                + #"{"site":"App/Poll.swift:3","label":null,"dueInMs":12.5,"repeating":true,"intervalMs":250.0}]}]}"#
        )
        #expect(
            TimersView.lines(document) == [
                "DUE IN   REPEATS         LOOP  SITE",
                "12.5 ms  every 250.0 ms  io    App/Poll.swift:3",
                "loop io: 52 more timers, due later, not listed",
            ]
        )
    }

    @Test func aStallShowsItsSiteLabelDurationBacktraceAndLastEvents() throws {
        #expect(
            StallsView.lines(try Self.snapshot(SnapshotFixtures.snapshot())) == [
                "STALL of 1.2 s on loop main, 3.0 s ago (callback; reported at 109.1 ms)",
                "  site:  App/Stall.swift:7",
                "  label: stall on purpose",
                "  backtrace:",
                "    #0 holdTheLoopOnPurpose(milliseconds:)",
                "    #1 closure in main",
                "  last events:",
                "    at 10.5 ms wakeUp",
                "    at 11.0 ms slowJob durationMs=3.2 site=App/File.swift:12",
            ]
        )
    }

    @Test func aStallNotSeenToEndShowsTheLowerBoundAndItsBacktraceFoldedToTheProcesssOwnFrames() throws {
        let lines = StallsView.lines(try Self.snapshot(SnapshotFixtures.stallWithLongBacktrace()))
        let frames = SnapshotFixtures.longBacktrace
        #expect(
            lines == [
                "STALL of at least 109.1 ms on loop main, 20.0 ms ago (callback; no end seen yet)",
                "  site:  App/Stall.swift:7",
                "  label: stall on purpose",
                "  backtrace:",
                "    " + frames[3],
                "    " + frames[4],
                "    " + frames[38],
                "    " + frames[0] + "   (where the thread was)",
                "    … 38 more frames (runtime, loop, glue): --once --json or --dump has them all",
                "  last events:",
                "    at 5.0 ms stall backtrace=(42 entries) durationMs=120.0 ended=true label=earlier",
            ]
        )
        #expect(frames.count == 42)
        #expect(frames[38].contains(" main + 1234 in dashboard"))
        let overview = OverviewView.lines(
            try Self.snapshot(SnapshotFixtures.stallWithLongBacktrace()),
            rates: IterationRates()
        )
        #expect(overview.contains("  stalls: 1, the last ≥ 109.1 ms at App/Stall.swift:7 \"stall on purpose\""))
    }

    @Test func aBacktraceWithoutFramesOfTheProcesssOwnShowsItsFirstFrames() {
        let frames = (0..<20).map { "#\($0) 0x00007f3a1c2e4545 in libc.so.6" }
        #expect(
            BacktraceFolding.lines(frames)
                == Array(frames.prefix(8)) + [
                    "… 12 more frames (runtime, loop, glue): --once --json or --dump has them all"
                ]
        )
        #expect(BacktraceFolding.lines(Array(frames.prefix(2))) == Array(frames.prefix(2)))
    }

    @Test(arguments: [
        ("#3 0x1 MyApp.Catalogue.load() -> () + 42 in myapp", true),
        ("#4 0x1 closure #1 () -> () in MyApp.main() + 3 in myapp", true),
        ("#4 0x1 closure #2 (Swift.Int) -> Swift.Bool in closure #1 in MyApp.f() + 3 in myapp", true),
        ("#5 0x1 specialized MyApp.Cache.fill<A>(A) -> () + 1 in myapp", true),
        ("#6 0x1 NIOPosix.SelectableEventLoop.run() -> () + 7 in myapp", true),
        ("#7 0x1 main + 12 in myapp", true),
        ("#4 0x1 static MyApp.Stall.hold(Dispatch.DispatchSemaphore) -> () + 27 in myapp", true),
        ("#5 0x1 (extension in MyApp):MainlineLoop.MainLoop.hold() -> () + 1 in myapp", true),
        ("#22 0x1 protocol witness for MainlineLoop._UVEngineClient.run() -> () in conformance X + 9 in myapp", false),
        ("#26 0x1 @objc MainlineLoop.(_idle in _3606A7)(Swift.Optional<__C.uv_idle_s>) -> () + 9 in myapp", false),
        ("#8 0x1 closure #1 () -> () in MainlineLoop.MainLoop.post(_: () -> ()) -> () + 4 in myapp", false),
        ("#9 0x1 MainlineViewModels.ViewModel.resume() -> () + 4 in myapp", false),
        ("#9 0x1 MainlineConsoleTests.Stalls.hold() -> () + 4 in MainlinePackageTests.xctest", true),
        ("#10 0x1 thunk for @escaping @callee_guaranteed () -> () + 4 in myapp", false),
        ("#32 0x1 partial apply forwarder for closure #2 () -> () in MainlineLoop.MainLoop.run() + 15 in a", false),
        ("#34 0x1 partial apply forwarder for reabstraction thunk helper from () -> () + 1 in myapp", false),
        ("#40 0x1 partial apply forwarder for closure #1 () -> () in dashboard.Command.run() -> () + 16 in a", true),
        ("#11 0x1 Swift.Array.map<A>((A) throws -> B) -> [B] + 9 in myapp", false),
        ("#12 0x1 uv_run + 397 in myapp", false),
        ("#13 0x1 _start + 37 in myapp", false),
        ("#14 0x1 usleep + 73 in libc.so.6", false),
        ("#15 0x1 swift_task_switch + 1 in libswift_Concurrency.so", false),
        ("#16 0x1 in myapp", false),
        ("#17 0x1", false),
        ("not a frame", false),
    ])
    func aFrameIsTheProcesssOwnWhenNamedInTheExecutableAndOfNoSharedModule(frame: String, isOwn: Bool) {
        #expect(BacktraceFolding.isOwnCode(frame) == isOwn)
    }

    @Test func aDocumentThatDescribesLittleStillShowsWhatItHas() throws {
        let sparse = try Self.snapshot(
            #"{"schema":1,"loops":[{"name":"io","iterations":"many","delay":{"buckets":[{"count":2}]}},{}],"mailboxes":[{}],"viewModels":[{"state":5}],"future":{"x":1}}"#
        )
        let rates = IterationRates()
        #expect(sparse.loops.map { $0.name ?? "?" } == ["io", "?"])
        let overview = OverviewView.lines(sparse, rates: rates)
        #expect(overview.contains("loop io  ?  "))
        #expect(overview.contains("  iterations -  …/s  busy -%"))
        #expect(overview.contains("    > last |########################################| 2"))
        #expect(MailboxesView.lines(sparse)[1].hasPrefix("(unnamed)  -"))
        #expect(ViewModelsView.lines(sparse).first == "view models: 1 (1 ?)")
        for view in ConsoleView.allCases { _ = view.lines(sparse, rates: rates) }
    }

    @Test func anEmptyProcessSaysWhatIsMissingInEachView() throws {
        let empty = try Self.snapshot(#"{"schema":1,"loops":[],"mailboxes":[],"viewModels":[],"coordinators":[]}"#)
        let rates = IterationRates()
        #expect(OverviewView.lines(empty, rates: rates) == ["no loops described (the process serves no loop yet)"])
        #expect(SlowestJobsView.lines(empty) == ["no slow jobs recorded"])
        #expect(MailboxesView.lines(empty) == ["no mailboxes (made since the inspector started)"])
        #expect(TimersView.lines(empty) == ["no timers pending"])
        #expect(StallsView.lines(empty) == ["no stalls recorded"])
        #expect(
            StreamsView.lines(empty) == ["no stream subscriptions or group members (made since the inspector started)"]
        )
    }

    @Test func theStreamsShowEachSubscriptionsAndMembersLagHoldingsAndLastResync() throws {
        let snapshot = try Self.snapshot(
            #"{"schema":1,"loops":[],"streams":["#
                + #"{"kind":"subscription","stream":"orders","group":null,"position":120,"head":120,"lagEvents":0,"#
                + #""lagSeconds":0,"delivered":120,"held":null,"redelivered":null,"resyncs":0,"connected":true},"#
                + #"{"kind":"groupMember","stream":"jobs","group":"workers","member":"h-1-ab","position":900,"#
                + #""head":1000,"lagEvents":100,"lagSeconds":2.5,"delivered":950,"held":50,"redelivered":3,"#
                + #""resyncs":1,"lastResyncFrom":10,"lastResyncTo":14,"connected":false}]}"#
        )
        #expect(
            StreamsView.lines(snapshot) == [
                "STREAM  GROUP           POSITION  HEAD  LAG  LAG S  HELD  REDELIVERED  LAST RESYNC  CONNECTED",
                "orders  (subscription)  120       120   0    0.00   -     -            -            yes",
                "jobs    workers         900       1000  100  2.50   50    3            10..14       no",
            ]
        )
    }

    @Test func uptimesReadInSecondsMinutesAndHours() {
        #expect(Formatting.uptime(seconds: 12.5) == "12 s")
        #expect(Formatting.uptime(seconds: 303) == "5 min 3 s")
        #expect(Formatting.uptime(seconds: 7_500) == "2 h 5 min")
        #expect(Formatting.uptime(seconds: -.infinity) == "-")
    }

    @Test(arguments: [
        (UInt8(ascii: "1"), ConsoleView.overview), (UInt8(ascii: "o"), .overview), (UInt8(ascii: "2"), .slowestJobs),
        (UInt8(ascii: "j"), .slowestJobs), (UInt8(ascii: "3"), .mailboxes), (UInt8(ascii: "m"), .mailboxes),
        (UInt8(ascii: "4"), .viewModels), (UInt8(ascii: "v"), .viewModels), (UInt8(ascii: "5"), .timers),
        (UInt8(ascii: "t"), .timers), (UInt8(ascii: "6"), .stalls), (UInt8(ascii: "s"), .stalls),
        (UInt8(ascii: "7"), .streams), (UInt8(ascii: "b"), .streams),
    ])
    func eachViewHasANumberKeyAndALetter(key: UInt8, view: ConsoleView) {
        #expect(ConsoleView(key: key) == view)
    }

    @Test func otherKeysShowNoView() {
        for key in [UInt8(ascii: "0"), UInt8(ascii: "8"), UInt8(ascii: "f"), UInt8(ascii: "q"), 0x1B, 0xFF] {
            #expect(ConsoleView(key: key) == nil)
        }
    }

    @Test func theScreenHasAHeaderATabLineAndTheView() throws {
        let lines = Screen.lines(
            of: try Self.snapshot(SnapshotFixtures.snapshot()),
            view: .mailboxes,
            rates: IterationRates(),
            status: "FROZEN (f: live)"
        )
        #expect(lines[0] == "mainline-console  orders (pid 4242)  up 12 s  FROZEN (f: live)")
        #expect(
            lines[1]
                == "1 overview  2 slowest jobs  [3 mailboxes]  4 view models  5 timers  6 stalls  7 streams   f freeze  q quit"
        )
        #expect(lines[3].hasPrefix("NAME"))
    }
}
