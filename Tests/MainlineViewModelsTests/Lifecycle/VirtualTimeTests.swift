import CMainlineShims
import MainlineEvents
import MainlineLoop
import MainlineObservables
import MainlineTesting
import MainlineViewModels
import Testing

/// A view model whose resumed scope sleeps a second on its loop's clock, then sets a subject — in a loop, until it is
/// paused. It leaves the main actor twice per second: `Task.sleep(for:clock:)` and `Subject.set(_:)` are both
/// `nonisolated`, so this is the hardest case for virtual time (see the DocC article "Virtual time for async code").
@MainActor
final class Heartbeat: BaseViewModel {
    enum Sleep { case taskSleep, scopeSleep }

    let beats: InitializedSubject<Int>
    /// The virtual time of each beat.
    private(set) var beatTimes: [LoopInstant] = []
    private let sleep: Sleep

    init(loop: TestLoop, sleep: Sleep = .taskSleep) {
        beats = InitializedSubject(0, loop: loop)
        self.sleep = sleep
        super.init(loop: loop)
    }

    override func onResume(_ scope: ViewModelScope) {
        scope.launch { [weak self, beats, clock = scope.clock, sleep] in
            while true {
                do {
                    switch sleep {
                    case .taskSleep: try await Task.sleep(for: .seconds(1), clock: clock)
                    case .scopeSleep: try await scope.sleep(for: .seconds(1))
                    }
                } catch {
                    return
                }
                self?.beatTimes.append(clock.now)
                await beats.set(beats.value + 1)
            }
        }
    }
}

/// A view model whose resumed scope counts an event's notifications with `for await`; a lifecycle tick triggers the
/// event once a second.
@MainActor
final class NotificationCounter: BaseViewModel {
    let event: SimpleEvent
    private(set) var seen: [LoopInstant] = []

    init(loop: TestLoop) {
        event = SimpleEvent()
        super.init(loop: loop)
    }

    override func onResume(_ scope: ViewModelScope) {
        scope.tick(every: .seconds(1)) { [event] _ in event.trigger() }
        scope.launch { [weak self, event, clock = scope.clock] in
            for await _ in event.notifications {
                self?.seen.append(clock.now)
            }
        }
    }
}

@MainActor
@Suite("Virtual time for async code")
struct VirtualTimeTests {
    private static let seconds = (1...10).map { LoopInstant.zero + .seconds($0) }

    @Test(arguments: [Heartbeat.Sleep.taskSleep, .scopeSleep])
    func aResumedScopeThatSleepsASecondBeatsTenTimesInTenVirtualSeconds(_ sleep: Heartbeat.Sleep) async {
        let loop = TestLoop()
        let model = Heartbeat(loop: loop, sleep: sleep)
        model.didResume()
        await loop.advance(by: .seconds(10))
        #expect(model.beats.value == 10)
        #expect(model.beatTimes == Self.seconds)
        #expect(loop.now == .zero + .seconds(10))
        model.clear()
    }

    @Test func pausingAtFiveAndAHalfSecondsStopsItAtFive() async {
        let loop = TestLoop()
        let model = Heartbeat(loop: loop)
        model.didResume()
        await loop.advance(by: .milliseconds(5_500))
        #expect(model.beats.value == 5)
        model.didPause()
        await loop.advance(by: .seconds(10))
        #expect(model.beats.value == 5)
        #expect(model.beatTimes == Array(Self.seconds.prefix(5)))
        #expect(loop.scheduledTimerCount == 0, "the cancelled sleep took its timer with it")
        model.clear()
    }

    @Test func aScopesTaskIsInVirtualTimeWhileItRunsAndLetGoWhenItReturns() async {
        let loop = TestLoop()
        let model = Heartbeat(loop: loop)
        model.didResume()
        await loop.advance(by: .milliseconds(1_500))
        #expect(_VirtualTimeTasks.adoptedTaskCount(owner: loop) == 1, "the scope's task is in virtual time")
        model.didPause()
        await loop.advance(by: .seconds(1))
        #expect(model.beats.value == 1)
        #expect(_VirtualTimeTasks.adoptedTaskCount(owner: loop) == 0, "the finished task was let go")
        model.clear()
    }

    /// The same scenario, 1,000 times in one process: virtual time is deterministic, not "usually right". (200 times
    /// under ThreadSanitizer, where 1,000 held the main actor for half a minute and starved other suites' consumers.)
    @Test func tenSecondsInOneCallAThousandTimesOver() async {
        var failures = 0
        for _ in 0..<(mainline_is_thread_sanitized() != 0 ? 200 : 1_000) {
            let loop = TestLoop()
            let model = Heartbeat(loop: loop)
            model.didResume()
            await loop.advance(by: .milliseconds(5_500))
            let atHalf = model.beats.value
            await loop.advance(by: .milliseconds(4_500))
            let atTen = model.beats.value
            model.didPause()
            await loop.advance(by: .seconds(5))
            if atHalf != 5 || atTen != 10 || model.beats.value != 10 || model.beatTimes != Self.seconds {
                failures += 1
            }
            model.clear()
        }
        #expect(failures == 0)
    }

    @Test func aForAwaitOverAnEventSeesEachNotificationAtItsVirtualTime() async {
        let loop = TestLoop()
        let model = NotificationCounter(loop: loop)
        model.didResume()
        await loop.advance(by: .seconds(10))
        #expect(model.seen == Self.seconds)
        model.didPause()
        await loop.advance(by: .seconds(3))
        #expect(model.seen.count == 10)
        model.clear()
    }

    @Test func aSleepingTaskNeverWakesInRealTime() async throws {
        let loop = TestLoop()
        let sleeper = Task { @MainActor in
            try await loop.clock.sleep(for: .nanoseconds(1))
            return loop.now
        }
        // Rounds of the main actor, however many, do not move virtual time.
        for _ in 0..<100 { await loop.runUntilIdle() }
        #expect(loop.scheduledTimerCount == 1)
        await loop.advance(by: .nanoseconds(1))
        #expect(try await sleeper.value == .zero + .nanoseconds(1))
    }
}
