import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// What `EventLoop` traps on, each checked in a child process with its message.
extension EventLoopTests {
    @Suite("EventLoop traps")
    struct CrashTests {
        @Test func checkIsolatedOffTheLoopTrapsNamingTheLoop() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let loop = EventLoop(name: "probe-loop")
                loop.checkIsolated()
            }
            let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
            #expect(message.contains("Expected to run on EventLoop 'probe-loop', but running on another thread"))
        }

        @Test func assumeIsolatedOfAnActorOnTheLoopTrapsOffTheLoop() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let loop = EventLoop(name: "probe-loop")
                touchAssumingIsolation(LoopBound(loop: loop))
            }
            let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
            #expect(message.contains("Incorrect actor executor assumption"))
        }

        @Test(.timeLimit(.minutes(1)))  // a dropped job would leave the child process suspended forever
        func aJobEnqueuedAfterTheLoopStoppedTraps() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let loop = EventLoop(name: "stopped-loop")
                let actor = LoopBound(loop: loop)
                loop.stopAndWait()
                await actor.touch()
            }
            let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
            #expect(message.contains("BUG DETECTED: a job was enqueued on EventLoop 'stopped-loop' after it stopped"))
        }

        @Test(.timeLimit(.minutes(1)))  // without the check, the child process deadlocks
        func stopAndWaitOnTheLoopsOwnThreadTraps() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let loop = EventLoop(name: "self-waiter")
                await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in
                    loop.post { loop.stopAndWait() }
                }
            }
            let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
            #expect(
                message.contains("EventLoop.stopAndWait() was called on the thread of EventLoop 'self-waiter' itself")
            )
        }
    }
}

/// `assumeIsolated` is synchronous API: call it from a synchronous function.
private func touchAssumingIsolation(_ actor: LoopBound) {
    actor.assumeIsolated { $0.touch() }
}
