import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

extension EventLoopTests {
    @Suite("EventLoopGroup")
    struct GroupTests {
        @Test func nextHandsOutTheLoopsRoundRobinEachOnAThreadOfItsOwn() async {
            let group = EventLoopGroup(count: 3, name: "group")
            let handedOut = (0..<7).map { _ in group.next() }
            #expect(
                handedOut.map(\.name) == ["group-0", "group-1", "group-2", "group-0", "group-1", "group-2", "group-0"]
            )
            #expect(handedOut[0] === handedOut[3] && handedOut[0] !== handedOut[1])
            var threads: Set<Int64> = []
            for loop in group.loops { threads.insert(await loop.threadID()) }
            #expect(threads.count == 3)
            for loop in group.loops {
                loop.stop()
                await loop.waitUntilStopped()
            }
        }

        @Test func stopStopsEveryLoopAndStopAndWaitWaitsForAll() async {
            let baseline = _UVResources.live(.eventLoop)
            let group = EventLoopGroup(count: 2)
            group.stop()
            #expect(group.loops.allSatisfy { !$0.post {} })
            group.stopAndWait()
            #expect(group.loops.allSatisfy { $0.loopCloseResult == 0 })
            #expect(_UVResources.live(.eventLoop) == baseline)
        }

        @Test func aGroupWithoutLoopsTraps() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                _ = EventLoopGroup(count: 0)
            }
            let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
            #expect(message.contains("EventLoopGroup(count: 0) needs at least one loop"))
        }
    }
}
