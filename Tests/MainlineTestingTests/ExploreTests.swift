import Foundation
import MainlineLoop
import MainlineTesting
import Testing

/// `explore`: a test body under many schedules, stopped at the first that fails, with a line that replays it.
@MainActor
@Suite("Exploring schedules")
struct ExploreTests {
    /// An order bug: a view model's load and its first render are due at the same instant, and the render assumes
    /// the load came first. The real loop's order (scheduling order) hides it.
    static func loadThenRender(_ loop: TestLoop) -> Bool {
        var loaded = false
        var renderedEmpty = false
        loop.schedule(after: .seconds(1)) { loaded = true }
        loop.schedule(after: .seconds(1)) { renderedEmpty = !loaded }
        loop.advance(by: .seconds(1))
        return !renderedEmpty
    }

    @Test func exploringStopsAtTheFirstFailingSeedWithALineThatReplaysItExactly() async throws {
        var result: ExploreResult?
        let message = Recorded<String>()
        await withKnownIssue {
            result = await explore(seeds: 0..<100, strategy: .random) { schedule in
                #expect(Self.loadThenRender(TestLoop(schedule: schedule)))
            }
        } matching: { issue in
            message.add(issue)
            return String(describing: issue).contains("replay: TestLoop(replaying: ")
        }
        let found = try #require(result)
        let seed = try #require(found.failingSeed)
        let line = try #require(found.replayLine)
        #expect(found.runs == Int(seed) + 3, "two runs of the determinism check, then seeds up to the failing one")
        #expect(message.first.contains("seed \(seed) of 0..<100"))
        #expect(message.first.contains(line))
        // The line replays the failure, every time.
        for _ in 0..<3 { #expect(!Self.loadThenRender(try TestLoop(replaying: line))) }
    }

    @Test func theRealLoopsOrderPassesEverySeedAndReportsNothing() async {
        let result = await explore(seeds: 0..<20, strategy: .fifo) { schedule in
            #expect(Self.loadThenRender(TestLoop(schedule: schedule)))
        }
        #expect(result.runs == 22)
        #expect(result.failingSeed == nil && result.replayLine == nil && result.isDeterministic)
    }

    @Test func pctFindsTheOrderBug() async {
        var result: ExploreResult?
        await withKnownIssue {
            result = await explore(seeds: 0..<100, strategy: .pct(depth: 2)) { schedule in
                #expect(Self.loadThenRender(TestLoop(schedule: schedule)))
            }
        }
        #expect(result?.failingSeed != nil)
    }

    @Test func aThrownErrorFailsTheRunLikeAnIssue() async {
        struct Wrong: Error {}
        var result: ExploreResult?
        await withKnownIssue {
            result = await explore(seeds: 0..<50, strategy: .random) { schedule in
                if !Self.loadThenRender(TestLoop(schedule: schedule)) { throw Wrong() }
            }
        }
        #expect(result?.failingSeed != nil)
    }

    /// Runs of the non-deterministic body so far: each run schedules one more timer than the last.
    static var runs = 0

    @Test func aBodyThatDoesNotRepeatItselfUnderOneScheduleIsReportedAsNotDeterministic() async {
        Self.runs = 0
        var result: ExploreResult?
        let message = Recorded<String>()
        await withKnownIssue {
            result = await explore(seeds: 0..<10, strategy: .random) { schedule in
                let loop = TestLoop(schedule: schedule)
                Self.runs += 1
                for _ in 0..<Self.runs { loop.schedule(after: .seconds(1)) {} }
                loop.advance(by: .seconds(1))
            }
        } matching: { issue in
            message.add(issue)
            return true
        }
        #expect(result?.isDeterministic == false)
        #expect(result?.runs == 2, "the check stops before exploring")
        #expect(message.first.contains("Not deterministic under a fixed schedule"))
    }

    @Test func aDeterministicBodyPassesTheCheck() async {
        let result = await explore(seeds: 0..<10, strategy: .pct(depth: 3)) { schedule in
            let loop = TestLoop(schedule: schedule)
            for _ in 0..<3 { loop.schedule(after: .seconds(1)) {} }
            loop.advance(by: .seconds(1))
        }
        #expect(result.isDeterministic)
        #expect(result.failingSeed == nil)
    }
}
