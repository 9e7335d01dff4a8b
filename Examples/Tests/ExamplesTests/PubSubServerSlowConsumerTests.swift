import Foundation
import MainlineTesting
import Testing

@testable import pubsub_server

/// pubsub-server's slow consumers on a `TestLoop`, in virtual time: a queue group's client that takes none of its
/// bytes for the bound loses its unwritten group messages to the group's other clients at exactly the bound, gets none
/// while slow, and gets its turn again once it has taken its bytes; every message is acknowledged once.
@MainActor
@Suite("Example: pubsub-server's slow consumers of a queue group on a test loop")
struct PubSubServerSlowConsumerTests {
    typealias FakeSocket = PubSubServerConnectionTests.FakeSocket

    static let bound = Duration.seconds(2)
    static let padding = String(repeating: "x", count: 1_000)

    /// A client of the group on `loop`, with its socket, whose slow consumer bound is ``bound``.
    private func client(_ id: Int, loop: TestLoop) -> (ClientConnection, FakeSocket) {
        let socket = FakeSocket()
        let connection = ClientConnection(
            id: id,
            socket: socket,
            idleTimeout: .seconds(300),
            slowConsumerBound: Self.bound,
            loop: loop
        )
        return (connection, socket)
    }

    /// How many times each message was acknowledged, by its text.
    final class Acknowledgements {
        var counts: [String: Int] = [:]
        /// Dispatches each of `texts` to `group`, counting its acknowledgements.
        @MainActor func dispatch(_ texts: [String], to group: QueueGroup) {
            for text in texts { group.dispatch(text) { [self] in counts[text, default: 0] += 1 } }
        }
    }

    @Test func aStuckClientsGroupMessagesGoToTheOtherClientExactlyAtTheBoundAndEachIsAcknowledgedOnce() {
        let loop = TestLoop()
        let (stuck, stuckSocket) = client(1, loop: loop)
        let (healthy, healthySocket) = client(2, loop: loop)
        let group = QueueGroup(id: QueueGroupID(group: "workers", topic: "jobs"))
        group.add(stuck)
        group.add(healthy)
        let acknowledged = Acknowledgements()
        let start = loop.now
        #expect(loop.post { acknowledged.dispatch(["m0", "m1", "m2", "m3"], to: group) })
        loop.runUntilIdle()
        // Round-robin: the stuck client's socket has m0 and m2 and never completes a write; the healthy one takes all.
        #expect(stuckSocket.written == ["MSG jobs m0", "MSG jobs m2"])
        #expect(healthySocket.written == ["MSG jobs m1", "MSG jobs m3"])
        healthySocket.completeAll()
        loop.runUntilIdle()
        #expect(acknowledged.counts == ["m1": 1, "m3": 1])

        // A millisecond before the bound they are still the stuck client's.
        loop.advance(to: start.advanced(by: Self.bound - .milliseconds(1)))
        #expect(healthySocket.written.count == 2)
        #expect(stuck.acceptsGroupMessages)

        // At the bound the stuck client is a slow consumer: both go to the healthy client, which acknowledges them.
        loop.advance(to: start.advanced(by: Self.bound))
        #expect(healthySocket.written == ["MSG jobs m1", "MSG jobs m3", "MSG jobs m0", "MSG jobs m2"])
        #expect(!stuck.acceptsGroupMessages)
        healthySocket.completeAll()
        loop.runUntilIdle()
        #expect(acknowledged.counts == ["m0": 1, "m1": 1, "m2": 1, "m3": 1])

        // While slow it gets nothing new.
        #expect(loop.post { acknowledged.dispatch(["m4", "m5"], to: group) })
        loop.runUntilIdle()
        #expect(healthySocket.written.suffix(2) == ["MSG jobs m4", "MSG jobs m5"])
        #expect(stuckSocket.written == ["MSG jobs m0", "MSG jobs m2"])

        // It reads again: its old lines reach it (already handed to the socket), acknowledging nothing twice, and it
        // gets its turn again.
        stuckSocket.completeAll()
        loop.runUntilIdle()
        #expect(stuck.acceptsGroupMessages)
        #expect(loop.post { acknowledged.dispatch(["m6", "m7"], to: group) })
        loop.runUntilIdle()
        #expect(stuckSocket.written.count == 3 && healthySocket.written.count == 7)
        stuckSocket.completeAll()
        healthySocket.completeAll()
        loop.runUntilIdle()
        #expect(acknowledged.counts == Dictionary(uniqueKeysWithValues: (0..<8).map { ("m\($0)", 1) }))
        stuck.disconnected()
        healthy.disconnected()
        #expect(!loop.hasPendingWork)
    }

    @Test func theBoundCountsFromTheClientsLastCompletedWriteSoAClientThatReadsSlowlyKeepsItsMessages() {
        let loop = TestLoop()
        let (slow, slowSocket) = client(1, loop: loop)
        let group = QueueGroup(id: QueueGroupID(group: "workers", topic: "jobs"))
        group.add(slow)
        let acknowledged = Acknowledgements()
        let start = loop.now
        #expect(loop.post { acknowledged.dispatch(["m0", "m1"], to: group) })
        loop.runUntilIdle()
        // A write completes every 1.5 s, each time with a new line behind it: never the bound without progress.
        for step in 1...4 {
            loop.advance(to: start.advanced(by: .milliseconds(1_500 * step)))
            slowSocket.completeAll()
            #expect(loop.post { acknowledged.dispatch(["n\(step)"], to: group) })
            loop.runUntilIdle()
            #expect(slow.acceptsGroupMessages, "step \(step)")
        }
        // Then none completes: slow exactly the bound after the last completion, and what it held waits in the group.
        let lastCompletion = loop.now
        loop.advance(to: lastCompletion.advanced(by: Self.bound - .milliseconds(1)))
        #expect(slow.acceptsGroupMessages)
        loop.advance(to: lastCompletion.advanced(by: Self.bound))
        #expect(!slow.acceptsGroupMessages)
        #expect(group.waiting.map(\.text) == ["n4"])
        // It reads again: the line it held reaches the kernel after all, so the message is done, and the copy that
        // waited in the group is not written again.
        slowSocket.completeAll()
        loop.runUntilIdle()
        #expect(slow.acceptsGroupMessages && group.waiting.isEmpty)
        #expect(slowSocket.written.filter { $0 == "MSG jobs n4" }.count == 1)
        #expect(loop.post { acknowledged.dispatch(["n5"], to: group) })
        loop.runUntilIdle()
        #expect(slowSocket.written.last == "MSG jobs n5")
        slowSocket.completeAll()
        loop.runUntilIdle()
        #expect(acknowledged.counts == ["m0": 1, "m1": 1, "n1": 1, "n2": 1, "n3": 1, "n4": 1, "n5": 1])
        slow.disconnected()
        #expect(!loop.hasPendingWork)
    }

    @Test func groupLinesTakenBackFromAPausedClientsMailboxAreNeverWrittenToIt() {
        let loop = TestLoop()
        let (stuck, stuckSocket) = client(1, loop: loop)
        let group = QueueGroup(id: QueueGroupID(group: "workers", topic: "jobs"))
        group.add(stuck)
        let acknowledged = Acknowledgements()
        let start = loop.now
        // 100 lines of 1 KB to the group's only client: it pauses at 64 KiB, the rest wait in its mailbox.
        let texts = (0..<100).map { "m\($0) \(Self.padding)" }
        #expect(loop.post { acknowledged.dispatch(texts, to: group) })
        loop.runUntilIdle()
        #expect(!stuck.isTakingBytes)
        let handedToSocket = stuckSocket.written.count
        #expect(handedToSocket >= 60 && handedToSocket < 100, "\(handedToSocket) lines went to the socket")

        let (healthy, healthySocket) = client(2, loop: loop)
        group.add(healthy)
        loop.advance(to: start.advanced(by: Self.bound))
        // All 100 went to the healthy client, in order (it pauses at 64 KiB too, and takes the rest as it reads).
        for _ in 0..<4 where healthySocket.written.count < texts.count {
            healthySocket.completeAll()
            loop.runUntilIdle()
        }
        #expect(healthySocket.written == texts.map { "MSG jobs \($0)" })
        healthySocket.completeAll()
        // The stuck client reads again: only what its socket had reaches it; its mailbox's group lines are not sent.
        stuckSocket.completeAll()
        loop.runUntilIdle()
        #expect(stuck.isTakingBytes)
        #expect(stuckSocket.written.count == handedToSocket)
        #expect(acknowledged.counts == Dictionary(uniqueKeysWithValues: texts.map { ($0, 1) }))
        stuck.disconnected()
        healthy.disconnected()
        #expect(!loop.hasPendingWork)
    }
}
