import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// The one thread-local "which loop am I running?" mark serves both kinds of loop, and never confuses them.
@Suite("Running-loop mark")
struct RunningLoopMarkTests {
    @Test func anEventLoopsThreadIsInItsLoopButNeverTakenForTheMainActor() async {
        let loop = EventLoop(name: "mark")
        let other = EventLoop(name: "other")
        let seen = await loop.onLoop {
            (inLoop: loop.inEventLoop, inOther: other.inEventLoop, mainActor: _RunningLoop.isInsideAnyLoop)
        }
        #expect(seen.inLoop)
        #expect(!seen.inOther)
        // A main-actor fast path (a ScheduledTask cancelled on the main actor) must not be taken on this thread.
        #expect(!seen.mainActor)
        #expect(!loop.inEventLoop)
        loop.stopAndWait()
        other.stopAndWait()
    }

    @Test func aMainLoopPhaseIsInsideAMainActorLoop() async {
        let loop = MainLoop()
        let inside = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            _ = loop.post { done.resume(returning: _RunningLoop.isInsideAnyLoop) }
        }
        #expect(inside)
        loop.stop()
        await loop.waitUntilStopped()
    }
}
