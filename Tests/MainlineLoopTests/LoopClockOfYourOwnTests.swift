import MainlineTesting
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// `LoopClock(loop:now:)`: the clock a `Loop` of your own gets — its `now`, and sleeps armed with the loop's
/// `schedule(at:)`: at once from the main actor, through a post from anywhere else.
@MainActor
@Suite("LoopClock of a Loop of your own")
struct LoopClockOfYourOwnTests {
    @Test func itReadsTheLoopsNowAndArmsASleepOnTheLoopsTimersFromTheMainActor() async {
        let loop = ExternalLoop(now: .zero + .seconds(10))
        #expect(loop.clock.now == .zero + .seconds(10))
        let sleeper = await startSleeper(EventLog()) { try await loop.clock.sleep(for: .seconds(2)) }
        #expect(loop.scheduledDelays == [.seconds(2)], "armed at once, as a timer of the loop")
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func offTheMainActorASleepIsArmedByAPost() async throws {
        let loop = ExternalLoop(now: .zero)
        let clock = loop.clock
        let sleeper = Task.detached { try await clock.sleep(until: .zero + .seconds(3)) }
        await loop.waitForPosts(1)
        #expect(loop.scheduledDelays.isEmpty)
        loop.runPosts()
        #expect(loop.scheduledDelays == [.seconds(3)])
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func aLoopThatRefusesTheArmingPostWakesTheSleeperWithLoopStopped() async {
        let loop = ExternalLoop(accepts: false)
        let clock = loop.clock
        await #expect(throws: LoopStopped.self) {
            try await Task.detached { try await clock.sleep(for: .seconds(1)) }.value
        }
    }
}
