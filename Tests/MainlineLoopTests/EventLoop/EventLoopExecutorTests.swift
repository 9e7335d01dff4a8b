import CMainlineShims
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

extension EventLoopTests {
    @Suite("EventLoop as an executor")
    struct ExecutorTests {
        @Test func anActorOnTheLoopRunsEveryJobOnTheLoopThread() async {
            let loop = EventLoop(name: "actor-loop")
            let loopThread = await loop.threadID()
            let actor = LoopBound(loop: loop)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        for _ in 0..<250 {
                            await actor.touch()
                            await actor.touchAcrossSuspension()
                        }
                    }
                }
            }
            #expect(await actor.calls == 8 * 250 * 3)
            #expect(await actor.callsOffTheLoop == 0)
            #expect(await actor.threads == [loopThread])
            #expect(loopThread != mainline_thread_id())
            loop.stop()
            await loop.waitUntilStopped()
        }

        @Test func assumeIsolatedWorksInsideTheLoopsPostsAndTimers() async {
            let loop = EventLoop()
            let actor = LoopBound(loop: loop)
            let isolated = await withCheckedContinuation { (done: CheckedContinuation<[Bool?], Never>) in
                loop.post {
                    actor.assumeIsolated { $0.touch() }
                    let inPost = loop.isIsolatingCurrentContext()
                    loop.schedule(after: .milliseconds(1)) {
                        actor.assumeIsolated { $0.touch() }
                        loop.checkIsolated()
                        done.resume(returning: [inPost, loop.isIsolatingCurrentContext()])
                    }
                }
            }
            #expect(isolated == [true, true])
            #expect(loop.isIsolatingCurrentContext() == false)
            #expect(await actor.calls == 2)
            #expect(await actor.callsOffTheLoop == 0)
            loop.stop()
            await loop.waitUntilStopped()
        }

        @Test func aTaskPreferringTheLoopRunsItsChildWorkOnTheLoop() async {
            let loop = EventLoop()
            let loopThread = await loop.threadID()
            let seen = await Task(executorPreference: loop) { () -> [Int64] in
                @Sendable func here() -> Int64 { loop.inEventLoop ? mainline_thread_id() : -mainline_thread_id() }
                @Sendable func nonisolatedChild() async -> Int64 {
                    await Task.yield()
                    return here()
                }
                var seen = [here()]
                async let child = nonisolatedChild()
                seen += await withTaskGroup(of: Int64.self) { group in
                    for _ in 0..<4 { group.addTask { here() } }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                await Task.yield()
                seen.append(here())
                seen.append(await child)
                return seen
            }.value
            #expect(seen == [Int64](repeating: loopThread, count: 7))
            loop.stop()
            await loop.waitUntilStopped()
        }
    }
}
