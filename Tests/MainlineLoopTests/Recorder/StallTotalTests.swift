import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// A stall is reported while it lasts, with the watchdog's lower bound; the report the flight recorder keeps gets the
/// stall's total once the watchdog has seen it end, and the inspector's documents show both.
@Suite("Stall totals")
struct StallTotalTests {
    static func stall(startingAt start: UInt64, kind: LoopStall.Kind = .callback) -> LoopStall {
        LoopStall(label: "fetch", kind: kind, duration: .microseconds(109_100), startNanoseconds: start)
    }

    @Test func aKeptStallGetsItsTotalWhenItEndsAndTheDocumentsShowIt() {
        let recorder = LoopFlightRecorder(clock: { 0 })
        recorder.keep(Self.stall(startingAt: 1_000_000_000), at: 1_109_100_000)
        let reported = LoopFlightRecorder.stallSummary(recorder.stallsKept[0], now: 1_200_000_000)
        #expect(reported.ended == false)
        #expect(reported.totalMs == nil)
        #expect(reported.durationMs == 109.1)
        #expect(recorder.stallsKept[0].description.hasSuffix("has held the loop for at least 109.1 ms"))

        recorder.keepTotal(.milliseconds(309), ofStallStartedAt: 1_000_000_000, kind: .callback)

        #expect(recorder.stallsKept.map(\.total) == [.milliseconds(309)])
        let ended = LoopFlightRecorder.stallSummary(recorder.stallsKept[0], now: 1_400_000_000)
        #expect(ended.ended == true)
        #expect(ended.totalMs == 309)
        #expect(ended.durationMs == 109.1, "the lower bound at detection stays what it was")
        #expect(
            recorder.stallsKept[0].description
                == "callback 'fetch' held the loop for 309.0 ms (reported at 109.1 ms)"
        )
        // The recorder's own events (the dump) hold the same report.
        let event = recorder.events().first { if case .stall = $0.kind { true } else { false } }
        let dumped = event.map { LoopFlightRecorder.eventSummary($0, now: 1_400_000_000) }
        #expect(dumped?.totalMs == 309)
        #expect(dumped?.ended == true)
    }

    @Test func aTotalGoesToTheStallThatBeganThenAndOfThatKindOnly() {
        let recorder = LoopFlightRecorder(clock: { 0 })
        recorder.keep(Self.stall(startingAt: 5, kind: .iteration), at: 10)
        recorder.keep(Self.stall(startingAt: 5), at: 11)
        recorder.keep(Self.stall(startingAt: 20), at: 30)

        recorder.keepTotal(.milliseconds(400), ofStallStartedAt: 5, kind: .callback)
        recorder.keepTotal(.milliseconds(1), ofStallStartedAt: 999, kind: .callback)

        #expect(recorder.stallsKept.map(\.total) == [nil, .milliseconds(400), nil])
    }
}
