import Dispatch
import MainlineTesting
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// `run(_:)`: a body run on the loop, its result (or error) handed back to the awaiting task — on the main loop in
/// guest mode, a secondary loop and a test loop — and the three ways it does not run: a stopped loop, a cancelled task,
/// a drain deadline. The time limit (3 minutes, for a suite that takes a second alone) only turns a lost wake-up into a
/// failure: the suite's main-actor work waits behind every other suite's.
@Suite("Awaiting work on the loop", .timeLimit(.minutes(3)))
struct LoopRunTests {
    struct Boom: Error, Equatable {}

    /// Whether a body ran; thread-safe.
    final class Ran: Sendable {
        private let flag = _Locked(false)
        func set() { flag.withLock { $0 = true } }
        var value: Bool { flag.withLock { $0 } }
    }

    @Test func aMainLoopRunsTheBodyInsideAnIterationAndReturnsItsResult() async throws {
        let loop = MainLoop()
        let answer = try await loop.run { loop.isInsideIteration ? 42 : -1 }
        #expect(answer == 42)
        loop.stop()
        await loop.waitUntilStopped()
    }

    @Test func anEventLoopRunsTheBodyOnItsThreadAndRethrowsWhatItThrew() async throws {
        let loop = EventLoop(name: "run")
        #expect(try await loop.run { loop.inEventLoop })
        await #expect(throws: Boom()) { try await loop.run { throw Boom() } }
        loop.stopAndWait()
    }

    @MainActor
    @Test func aTestLoopRunsTheBodyWhenTheTestRunsTheLoop() async throws {
        let loop = TestLoop()
        await loop.advance(by: .seconds(5))
        let task = Task { try await loop.run { loop.now } }
        // Wait for the post to arrive (the task runs on the cooperative pool), then run the loop in virtual time.
        while !loop.hasPendingWork { await Task.yield() }
        await loop.runUntilIdle()
        #expect(try await task.value == loop.now)
    }

    @Test func aStoppedLoopThrowsLoopStoppedAndNeverRunsTheBody() async {
        let ran = Ran()
        let main = MainLoop()
        main.stop()
        await #expect(throws: LoopStopped()) { try await main.run { ran.set() } }
        let event = EventLoop(name: "stopped")
        event.stopAndWait()
        await #expect(throws: LoopStopped()) { try await event.run { ran.set() } }
        #expect(!ran.value)
    }

    @Test func aTaskCancelledBeforeTheBodyStartsThrowsCancellationErrorAndTheBodyNeverRuns() async throws {
        let loop = EventLoop(name: "cancel")
        let release = await loop.hold()
        let ran = Ran()
        let task = Task { try await loop.run { ran.set() } }
        await loop.waitForPendingPosts(1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        release()
        // A later run comes after the withdrawn one: by then it would have run.
        _ = try await loop.run {}
        #expect(!ran.value)
        loop.stopAndWait()
    }

    @Test func aBodyReleasedUnrunAtTheDrainDeadlineThrowsLoopStoppedInsteadOfHanging() async {
        let loop = EventLoop(name: "deadline")
        let release = await loop.hold()
        let ran = Ran()
        let task = Task { try await loop.run { ran.set() } }
        await loop.waitForPendingPosts(1)
        loop.stop(drainDeadline: .zero)
        release()
        await #expect(throws: LoopStopped()) { try await task.value }
        #expect(!ran.value)
        await loop.waitUntilStopped()
    }
}

extension EventLoop {
    /// Blocks the loop's thread inside a post until the returned function is called.
    fileprivate func hold() async -> @Sendable () -> Void {
        let holding = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        post {
            holding.signal()
            gate.wait()
        }
        await Task.detached { holding.wait() }.value
        return { gate.signal() }
    }

    /// Waits until `count` posts wait in the (held) loop's queue, yielding in between: the posts come from tasks. The
    /// job holding the loop counts as pending too, until its post phase ends.
    fileprivate func waitForPendingPosts(_ count: Int) async {
        while driver.queue.pendingCount < count + 1 { await Task.yield() }
    }
}
