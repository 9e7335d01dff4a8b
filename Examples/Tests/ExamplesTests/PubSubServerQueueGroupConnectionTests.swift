import Foundation
import MainlineTesting
import Testing

@testable import pubsub_server

/// pubsub-server's queue groups on a `TestLoop`, with sockets whose writes complete (or fail) only when the test says
/// so: a group message is done only once its line's write completed, and one whose client went away goes to another.
@MainActor
@Suite("Example: pubsub-server's queue groups on a test loop")
struct PubSubServerQueueGroupConnectionTests {
    typealias FakeSocket = PubSubServerConnectionTests.FakeSocket

    /// A client of the group on `loop`, with its socket.
    private func client(_ id: Int, loop: TestLoop) -> (ClientConnection, FakeSocket) {
        let socket = FakeSocket()
        return (ClientConnection(id: id, socket: socket, idleTimeout: .seconds(300), loop: loop), socket)
    }

    @Test func aGroupMessageIsAcknowledgedOnlyOnceItsLinesWriteCompleted() {
        let loop = TestLoop()
        let (connection, socket) = client(1, loop: loop)
        let group = QueueGroup(id: QueueGroupID(group: "workers", topic: "jobs"))
        group.add(connection)
        var acknowledged: [String] = []
        #expect(loop.post { group.dispatch("one") { acknowledged.append("one") } })
        loop.runUntilIdle()

        // Handed to the socket, not yet in the kernel: not done.
        #expect(socket.written == ["MSG jobs one"])
        #expect(acknowledged.isEmpty)
        socket.completeAll()
        loop.runUntilIdle()
        #expect(acknowledged == ["one"])
        connection.disconnected()
        #expect(!loop.hasPendingWork)
    }

    @Test func eachMessageGoesToOneClientInTurn() {
        let loop = TestLoop()
        let (first, firstSocket) = client(1, loop: loop)
        let (second, secondSocket) = client(2, loop: loop)
        let group = QueueGroup(id: QueueGroupID(group: "workers", topic: "jobs"))
        group.add(first)
        group.add(second)
        var acknowledged = 0
        #expect(loop.post { for index in 0..<6 { group.dispatch("m\(index)") { acknowledged += 1 } } })
        loop.runUntilIdle()
        #expect(firstSocket.written == ["MSG jobs m0", "MSG jobs m2", "MSG jobs m4"])
        #expect(secondSocket.written == ["MSG jobs m1", "MSG jobs m3", "MSG jobs m5"])
        firstSocket.completeAll()
        secondSocket.completeAll()
        loop.runUntilIdle()
        #expect(acknowledged == 6)
        first.disconnected()
        second.disconnected()
        #expect(!loop.hasPendingWork)
    }

    @Test func aMessageWhoseWriteFailedGoesToAnotherClientAndIsAcknowledgedOnceThere() {
        let loop = TestLoop()
        let (first, firstSocket) = client(1, loop: loop)
        let (second, secondSocket) = client(2, loop: loop)
        let group = QueueGroup(id: QueueGroupID(group: "workers", topic: "jobs"))
        group.add(first)
        group.add(second)
        var acknowledged = 0
        #expect(loop.post { group.dispatch("lost on the first") { acknowledged += 1 } })
        loop.runUntilIdle()
        #expect(firstSocket.written == ["MSG jobs lost on the first"])

        // The first client went away mid-write: not done, and the next client in turn gets it.
        firstSocket.completeAll(written: false)
        loop.runUntilIdle()
        #expect(acknowledged == 0)
        #expect(!first.acceptsGroupMessages)
        #expect(secondSocket.written == ["MSG jobs lost on the first"])
        secondSocket.completeAll()
        loop.runUntilIdle()
        #expect(acknowledged == 1)

        // The broken client gets nothing more.
        #expect(loop.post { group.dispatch("next") { acknowledged += 1 } })
        loop.runUntilIdle()
        #expect(secondSocket.written.last == "MSG jobs next")
        #expect(firstSocket.written == ["MSG jobs lost on the first"])
        first.disconnected()
        second.disconnected()
        #expect(!loop.hasPendingWork)
    }

    @Test func aClientThatLeavesBeforeItsWriteCompletedHandsItsMessagesOnAndAGroupWithoutClientsKeepsThem() {
        let loop = TestLoop()
        let (first, firstSocket) = client(1, loop: loop)
        let group = QueueGroup(id: QueueGroupID(group: "workers", topic: "jobs"))
        group.add(first)
        var acknowledged = 0
        #expect(loop.post { group.dispatch("kept") { acknowledged += 1 } })
        loop.runUntilIdle()
        #expect(firstSocket.written == ["MSG jobs kept"])

        // The client disconnects (out of the group first, as the broker does): the message waits for a client.
        group.remove(first)
        first.disconnected()
        #expect(group.waiting.map(\.text) == ["kept"])
        let (second, secondSocket) = client(2, loop: loop)
        group.add(second)
        loop.runUntilIdle()
        #expect(secondSocket.written == ["MSG jobs kept"])
        secondSocket.completeAll()
        loop.runUntilIdle()
        #expect(acknowledged == 1)
        second.disconnected()
        #expect(!loop.hasPendingWork)
    }

    @Test func qsubParsesAGroupAndATopic() throws {
        let parsed = try Command.parse(Array("qsub  workers jobs\r".utf8))
        #expect(parsed == .queueSubscribe(group: "workers", topic: "jobs"))
    }

    @Test(arguments: [
        ("QSUB", "usage: QSUB <group> <topic>"),
        ("QSUB workers", "usage: QSUB <group> <topic>"),
        ("QSUB workers jobs now", "usage: QSUB <group> <topic>"),
        ("QSUB \(String(repeating: "g", count: 65)) jobs", "invalid group '\(String(repeating: "g", count: 32))'"),
        ("QSUB workers \(String(repeating: "t", count: 65))", "invalid topic '\(String(repeating: "t", count: 32))'"),
    ])
    func aMalformedQSUBIsAnErrorNamingWhatIsWrong(line: String, message: String) {
        let answer: String
        do {
            answer = "parsed: \(String(describing: try Command.parse(Array(line.utf8))))"
        } catch {
            answer = error.description
        }
        #expect(answer.hasPrefix(message), "\(answer)")
    }
}
