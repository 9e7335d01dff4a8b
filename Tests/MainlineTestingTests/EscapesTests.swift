import Dispatch
import Foundation
import MainlineLoop
import MainlineTesting
import Testing

/// Escapes from virtual time during an exploration: each is a failure of the run that names what escaped and where,
/// unless the code says so with `outsideVirtualTime`.
@MainActor
@Suite("Escapes from virtual time")
struct EscapesTests {
    /// Explores `body` over a few seeds and returns the issues it recorded (all expected).
    static func issues(
        of body: @MainActor (TestSchedule) async throws -> Void
    ) async -> (result: ExploreResult?, messages: [String]) {
        var result: ExploreResult?
        let messages = Recorded<String>()
        await withKnownIssue {
            result = await explore(seeds: 0..<3, strategy: .random, checksDeterminism: false, body)
        } matching: { issue in
            messages.add(issue)
            return true
        }
        return (result, messages.values)
    }

    /// Runs `body` on a thread the test starts, and returns once it has run.
    static func fromAThreadOfItsOwn(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                body()
                done.resume()
            }
        }
    }

    /// Runs `body` on a thread of Dispatch's pool, and returns once it has run.
    static func fromDispatchsPool(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                body()
                done.resume()
            }
        }
    }

    @Test func readingTheMainLoopsRealClockFailsTheRun() async {
        let (result, messages) = await Self.issues { schedule in
            _ = TestLoop(schedule: schedule)
            _ = MainLoop.main.now
        }
        #expect(result?.failingSeed == 0)
        #expect(messages.contains { $0.contains("read a real clock: MainLoop.now, in the test body") })
        #expect(messages.contains { $0.contains("replay: TestLoop(replaying: ") })
    }

    @Test func sleepingOnARealLoopsClockFailsTheRun() async {
        let (result, messages) = await Self.issues { schedule in
            _ = TestLoop(schedule: schedule)
            // A sleep on `MainLoop.main`'s clock, cancelled before it starts: the escape is noted as the sleep begins,
            // and no timer of the shared main loop is left waiting. (An `EventLoop` of this test's own would show in
            // the process-wide count of live loops that the loop lifecycle tests compare.)
            let sleeper = Task { try await MainLoop.main.clock.sleep(until: .zero) }
            sleeper.cancel()
            _ = await sleeper.result
        }
        #expect(result?.failingSeed == 0)
        #expect(
            messages.contains {
                $0.contains("slept on a real clock: LoopClock.sleep(until:)")
                    && $0.contains("a task the run started on the main actor")
            }
        )
    }

    @Test func aTaskSleepingOnTheContinuousClockIsWokenFromOutsideTheRunAndFailsIt() async {
        let (result, messages) = await Self.issues { schedule in
            let loop = TestLoop(schedule: schedule)
            let slept = Handoff()
            Task.detached {
                try? await Task.sleep(for: .milliseconds(1))
                slept.resume()
            }
            await loop.runUntilIdle()
            await slept.wait()
        }
        #expect(result?.failingSeed == 0)
        #expect(
            messages.contains {
                $0.contains("waited on something outside virtual time: task 1 of the run was resumed from outside it")
            }
        )
    }

    @Test func postingFromAThreadTheLoopDidNotStartFailsTheRunAndNamesThePost() async {
        let (result, messages) = await Self.issues { schedule in
            let loop = TestLoop(schedule: schedule)
            await Self.fromAThreadOfItsOwn { loop.post {} }
            await loop.runUntilIdle()
        }
        #expect(result?.failingSeed == 0)
        #expect(
            messages.contains {
                $0.contains(
                    "posted from a thread the loop did not start: a post at MainlineTestingTests/EscapesTests.swift:"
                )
            }
        )
    }

    @Test func aTaskResumedFromOutsideTheRunFailsIt() async {
        let (result, messages) = await Self.issues { schedule in
            let loop = TestLoop(schedule: schedule)
            let waiting = Handoff()
            Task.detached { await waiting.wait() }
            await loop.runUntilIdle()
            // A thread of Dispatch's pool resumes the waiting task, as real I/O would.
            await Self.fromDispatchsPool { waiting.resume() }
            await loop.runUntilIdle()
        }
        #expect(result?.failingSeed == 0)
        #expect(
            messages.contains {
                $0.contains("waited on something outside virtual time: task 1 of the run was resumed from outside it")
            }
        )
    }

    @Test func saidEscapesPassAndTheRunIsNotFailed() async {
        let result = await explore(seeds: 0..<3, strategy: .random, checksDeterminism: false) { schedule in
            let loop = TestLoop(schedule: schedule)
            let wall = outsideVirtualTime("the test compares with wall time") { MainLoop.main.now }
            #expect(wall.nanoseconds > 0)
            try? await outsideVirtualTime("a real pause, on purpose") { try await Task.sleep(for: .milliseconds(1)) }
            await Self.fromAThreadOfItsOwn { _ = outsideVirtualTime("a worker of the fixture") { loop.post {} } }
            let waiting = Handoff()
            Task.detached { await outsideVirtualTime("waits on the real world") { await waiting.wait() } }
            await loop.runUntilIdle()
            await Self.fromDispatchsPool { waiting.resume() }
            await loop.runUntilIdle()
        }
        #expect(result.failingSeed == nil)
    }

    @Test func theSameCallsOutsideAnExplorationAreNotWatched() async {
        let loop = TestLoop()
        _ = MainLoop.main.now
        try? await Task.sleep(for: .milliseconds(1))
        await Self.fromAThreadOfItsOwn { loop.post {} }
        await loop.runUntilIdle()
        #expect(loop.postsRun == 1, "the post from the thread ran, and nothing was reported")
    }
}

/// A continuation one task waits on and another thread resumes. Thread-safe.
final class Handoff: @unchecked Sendable {
    // @unchecked Sendable: `continuation` and `resumed` are protected by `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?
    private var resumed = false

    /// Waits until ``resume()`` (returns at once if it came first).
    func wait() async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if resumed {
                lock.unlock()
                continuation.resume()
            } else {
                self.continuation = continuation
                lock.unlock()
            }
        }
    }

    /// Resumes the waiter, or lets it through when it comes.
    func resume() {
        lock.lock()
        resumed = true
        let waiting = continuation
        continuation = nil
        lock.unlock()
        waiting?.resume()
    }
}
