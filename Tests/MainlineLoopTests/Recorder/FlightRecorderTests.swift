import MainlineLoop
import MainlineTesting
import Testing

/// The flight recorder on a `TestLoop`, in virtual time: a callback that `simulateBusy(for:)` says took 5 ms is 5 ms of
/// work to the recorder, so every duration below is exact.
@MainActor @Suite("Flight recorder")
struct FlightRecorderTests {
    let loop = TestLoop()

    private var slowWork: [LoopFlightRecorder.SlowWork] {
        loop.flightRecorder.events().compactMap { if case .slowWork(let work) = $0.kind { work } else { nil } }
    }

    private var intervals: [LoopFlightRecorder.Interval] {
        loop.flightRecorder.events().compactMap { if case .interval(let interval) = $0.kind { interval } else { nil } }
    }

    @Test func aSlowPostIsRecordedWithTheLineThatPostedItAndHowLongItTook() {
        let line = #line + 1
        loop.post(label: "load catalogue") { loop.simulateBusy(for: .milliseconds(5)) }
        loop.post {}
        loop.runIteration()

        #expect(slowWork.count == 1)
        let work = slowWork.first
        #expect(work?.kind == .post)
        #expect(work?.duration == .milliseconds(5))
        #expect(work?.site?.location == "MainlineLoopTests/FlightRecorderTests.swift:\(line)")
        #expect(work?.site?.label == "load catalogue")
        #expect(work?.runLength == 1)
        #expect(work?.sitesInRun == 1)
        // Recorded when it ended: 5 ms into virtual time.
        #expect(loop.flightRecorder.events().last?.nanoseconds == 5_000_000)
    }

    @Test func workUnderTheThresholdIsNotRecordedAndTheThresholdCanChange() {
        loop.post { loop.simulateBusy(for: .microseconds(999)) }
        loop.runIteration()
        #expect(slowWork.isEmpty, "999 µs is under the default 1 ms")

        loop.post { loop.simulateBusy(for: .milliseconds(1)) }
        loop.runIteration()
        #expect(slowWork.map(\.duration) == [.milliseconds(1)], "the threshold counts as slow")

        loop.flightRecorder.settings.slowWorkThreshold = .milliseconds(10)
        loop.post { loop.simulateBusy(for: .milliseconds(5)) }
        loop.runIteration()
        #expect(slowWork.count == 1, "5 ms is under a 10 ms threshold")
    }

    @Test func tinyJobsAreTimedInRunsAndASlowRunFromOneLineStillNamesIt() {
        // Ten jobs from one line: the recorder times them in runs of 1, 2, 4, … (they take no time at all), so the
        // slow seventh is in a run of four — all from the same line, which is then exactly where it came from.
        let line = #line + 2
        for index in 0..<10 {
            loop.post { if index == 6 { loop.simulateBusy(for: .milliseconds(3)) } }
        }
        loop.runIteration()

        #expect(slowWork.count == 1)
        #expect(slowWork.first?.runLength == 4)
        #expect(slowWork.first?.sitesInRun == 1)
        #expect(slowWork.first?.site?.line == line)
        #expect(slowWork.first?.duration == .milliseconds(3))
    }

    @Test func aSlowRunOfJobsFromSeveralLinesSaysSo() {
        for index in 0..<3 { loop.post { _ = index } }
        loop.post {}
        loop.post { loop.simulateBusy(for: .milliseconds(2)) }
        loop.runIteration()
        // Runs of 1, 2, then [third of the loop, the line after it, the slow one]: the last window ended the phase.
        #expect(slowWork.count == 1)
        #expect(slowWork.first?.runLength == 2)
        #expect(slowWork.first?.sitesInRun == 2)

        // After a slow run the next jobs are timed one at a time again: exact.
        loop.post {}
        let line = #line + 1
        loop.post { loop.simulateBusy(for: .milliseconds(2)) }
        loop.runIteration()
        #expect(slowWork.last?.runLength == 1)
        #expect(slowWork.last?.site?.line == line)
    }

    @Test func slowTimersIdleBodiesAndSettleDeliveriesNameTheirSites() {
        let timer = loop.schedule(after: .seconds(1), label: "tick") { loop.simulateBusy(for: .milliseconds(2)) }
        loop.advance(by: .seconds(1))
        #expect(slowWork.last?.kind == .timer)
        #expect(slowWork.last?.site == timer.site)
        #expect(slowWork.last?.duration == .milliseconds(2))

        let idle = loop.whenIdle { loop.simulateBusy(for: .milliseconds(3)) }
        loop.runIteration()
        #expect(slowWork.last?.kind == .idle)
        #expect(slowWork.last?.site == idle.site)
        #expect(slowWork.last?.duration == .milliseconds(3))

        let notification = SettleNotification { loop.simulateBusy(for: .milliseconds(4)) }
        loop.requestSettle(notification)
        loop.runIteration()
        #expect(slowWork.last?.kind == .settle)
        #expect(slowWork.last?.site == notification.site)
        #expect(slowWork.last?.duration == .milliseconds(4))
        #expect(slowWork.count == 3)
    }

    @Test func iterationsAreSummedIntoOneIntervalPerTenMillisecondsOfActivity() {
        for _ in 0..<2 {
            loop.post { loop.simulateBusy(for: .milliseconds(4)) }
            loop.runIteration()
        }
        #expect(intervals.isEmpty, "8 ms of activity: the interval is still open")

        loop.post { loop.simulateBusy(for: .milliseconds(4)) }
        loop.post {}
        loop.runIteration()
        #expect(intervals.count == 1)
        let interval = intervals.first
        #expect(interval?.iterations == 3)
        #expect(interval?.posts == .milliseconds(12))
        #expect(interval?.busy == .milliseconds(12))
        #expect(interval?.span == .milliseconds(12))
        #expect(interval?.longestIteration == .milliseconds(4))
        #expect(interval?.postsRun == 4)
    }

    @Test func aLoopThatSleptLongerThanAnIntervalWritesWhatItDidBeforeTheSleep() {
        loop.post { loop.simulateBusy(for: .milliseconds(2)) }
        loop.runIteration()
        loop.advance(by: .seconds(5))
        loop.post {}
        loop.runIteration()
        #expect(intervals.count == 1)
        #expect(intervals.first?.iterations == 1)
        #expect(intervals.first?.posts == .milliseconds(2))
        #expect(intervals.first?.span == .milliseconds(2), "the sleep is not part of the interval")
    }

    @Test func theDelayHistogramCountsEachBusyIterationInItsBucket() {
        for milliseconds in [3, 3, 3, 30] {
            loop.post { loop.simulateBusy(for: .milliseconds(milliseconds)) }
            loop.runIteration()
        }
        loop.runIteration()  // no work: not counted

        let delay = loop.flightRecorder.delay
        #expect(delay.samples == 4)
        #expect(delay.longest == .milliseconds(30))
        // 3 ms falls in the bucket up to 4.096 ms: a percentile is its bucket's bound, never above the longest.
        #expect(delay.percentile(0.5) == .microseconds(4_096))
        #expect(delay.percentile(0.75) == .microseconds(4_096))
        #expect(delay.percentile(0.99) == .milliseconds(30))
        #expect(delay.buckets.first { $0.count > 0 }?.upTo == .microseconds(4_096))
    }

    @Test func theRingNeverGrowsAndKeepsTheLatestRecords() {
        loop.flightRecorder.settings = .init(capacityBytes: 4_096, slowWorkThreshold: .microseconds(1))
        #expect(loop.flightRecorder.capacity == 64)
        for microseconds in 1...200 {
            loop.post { loop.simulateBusy(for: .microseconds(microseconds)) }
            loop.runIteration()
        }
        let events = loop.flightRecorder.events()
        #expect(events.count == 64)
        let durations = slowWork.map(\.duration)
        #expect(durations.last == .microseconds(200))
        #expect(durations == durations.sorted(), "oldest first")
        #expect(durations.count + intervals.count == 64)
    }
}

extension FlightRecorderTests {
    @Test func aRecorderThatIsOffRecordsNothingAndOnAgainRecords() {
        loop.flightRecorder.settings.isRecording = false
        loop.post { loop.simulateBusy(for: .milliseconds(5)) }
        loop.schedule(after: .zero) { loop.simulateBusy(for: .milliseconds(5)) }
        loop.runIteration()
        loop.runIteration()
        #expect(loop.flightRecorder.events().isEmpty)
        #expect(loop.flightRecorder.delay.samples == 0)

        loop.flightRecorder.settings.isRecording = true
        loop.post { loop.simulateBusy(for: .milliseconds(5)) }
        loop.runIteration()
        #expect(slowWork.map(\.duration) == [.milliseconds(5)])
    }
}

/// The README's tour entry: a slow job, named by the line that posted it.
@MainActor @Test func theReadmesSlowJobIsNamedByItsSite() {
    let loop = TestLoop()
    loop.post(label: "load catalogue") { loop.simulateBusy(for: .milliseconds(5)) }
    loop.runIteration()
    let slow = loop.flightRecorder.events().compactMap { event -> LoopFlightRecorder.SlowWork? in
        if case .slowWork(let work) = event.kind { work } else { nil }
    }
    #expect(slow.map(\.duration) == [.milliseconds(5)])
    #expect(slow.first?.site?.label == "load catalogue")
    #expect(slow.first?.site?.fileID == "MainlineLoopTests/FlightRecorderTests.swift")
}
