import Hummingbird
import HummingbirdTesting
import MainlineTesting
import Testing

@testable import order_desk

/// order-desk's routes in-process, through HummingbirdTesting's `.router` framework (requests go straight to the
/// router, no sockets): on a `TestLoop`, where a handler that makes a round trip to the loop waits until the test
/// steps it, and time is virtual; and on `MainLoop.main`, as the service runs them.
@MainActor
@Suite("Example: order-desk's routes in-process", .timeLimit(.minutes(1)))
struct OrderDeskRouteTests {
    /// What a request answered: its status and its body as text.
    struct Reply: Sendable, Equatable {
        var status: HTTPResponse.Status
        var body: String
    }

    /// Whether a request sent by `answer(_:stepping:)` has been answered. Main actor.
    final class Answered {
        var yes = false
    }

    /// Sends `request` in a task of its own and steps `loop` until it is answered: a handler that waits on the loop
    /// (`loop.run { … }`, a full mailbox's `send`) gets its answer only while the test steps the loop.
    func answer(
        _ request: @escaping @Sendable () async throws -> Reply,
        stepping loop: TestLoop
    ) async throws -> Reply {
        let answered = Answered()
        let reply = Task {
            defer { answered.yes = true }
            return try await request()
        }
        let inTime = await loop.run(until: { answered.yes })
        #expect(inTime, "no answer while the test stepped the loop")
        if !inTime { reply.cancel() }
        return try await reply.value
    }

    /// `method uri` with `body`, through `client`.
    nonisolated static func send(
        _ client: any TestClientProtocol,
        _ method: HTTPRequest.Method,
        _ uri: String,
        body: String = ""
    ) async throws -> Reply {
        try await client.execute(uri: uri, method: method, body: ByteBuffer(string: body)) { response in
            Reply(status: response.status, body: String(buffer: response.body))
        }
    }

    @Test func onATestLoopTheTallyIsAnsweredWhileTheTestStepsTheLoop() async throws {
        let loop = TestLoop()
        let desk = OrderDesk(capacity: 4, loop: loop)
        desk.didResume()
        let app = Application(router: orderDeskRouter(desk: desk, loop: loop))
        try await app.test(.router) { @MainActor client in
            // The mailbox has room: `send` returns at once, the loop need not run.
            let order = try await Self.send(client, .post, "/orders", body: "apples")
            #expect(order.status == .accepted)
            // A round trip: the handler posts to the loop and waits until the test steps it.
            let tally = try await answer({ try await Self.send(client, .get, "/orders/tally") }, stepping: loop)
            #expect(tally == Reply(status: .ok, body: "taken 1\nwaiting 0\napples 1\n"))
        }
        desk.clear()
        await loop.runUntilIdle()
        #expect(!loop.hasPendingWork)
    }

    @Test func onATestLoopAClosedDeskLeavesTheRequestsPastItsCapacityWaiting() async throws {
        let loop = TestLoop()
        let desk = OrderDesk(capacity: 2, loop: loop)
        let app = Application(router: orderDeskRouter(desk: desk, loop: loop))
        try await app.test(.router) { @MainActor client in
            // Closed (never opened): nobody takes orders. Two fit in the mailbox; the third waits in `send`.
            // Off the main actor, as HummingbirdTesting's client sends every request.
            let orders = Task.detached {
                try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                    for item in ["apples", "pears", "plums"] {
                        group.addTask { try await Self.send(client, .post, "/orders", body: item).status }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            var tally = Reply(status: .ok, body: "")
            for _ in 0..<1_000 where !tally.body.hasPrefix("taken 0\nwaiting 1") {
                tally = try await answer({ try await Self.send(client, .get, "/orders/tally") }, stepping: loop)
            }
            let opened = try await answer({ try await Self.send(client, .post, "/desk/open") }, stepping: loop)
            #expect(opened.body == "open\n")
            // The desk takes the orders on the loop, and the waiting request gets its room and its answer.
            #expect(await loop.run(until: { desk.taken == 3 }))
            #expect(try await orders.value == [.accepted, .accepted, .accepted])
            tally = try await answer({ try await Self.send(client, .get, "/orders/tally") }, stepping: loop)
            #expect(tally.body.hasPrefix("taken 3\nwaiting 0\n"))
        }
        desk.clear()
    }

    @Test func theDeskCountsTheSecondsItIsOpenInVirtualTimeEvenWhenItsTickIsLate() async throws {
        let loop = TestLoop()
        let desk = OrderDesk(capacity: 4, loop: loop)
        desk.didResume()
        let app = Application(router: orderDeskRouter(desk: desk, loop: loop))
        await loop.advance(by: .seconds(1))
        // Busy from 1 s to 4.5 s: the late tick at 4.5 s stands for the one due at 2 s and skips 3 s and 4 s.
        loop.simulateBusy(for: .milliseconds(3_500))
        await loop.advance(by: .milliseconds(500))
        try await app.test(.router) { @MainActor client in
            let status = try await answer({ try await Self.send(client, .get, "/desk") }, stepping: loop)
            #expect(status.body == "open\nseconds-open 5\n")
        }
        desk.clear()
    }

    @Test func onTheMainLoopTheRoutesAnswerAsTheServiceDoes() async throws {
        let desk = OrderDesk(capacity: 4)
        desk.didResume()
        let app = Application(router: orderDeskRouter(desk: desk))
        try await app.test(.router) { @MainActor client in
            let order = try await Self.send(client, .post, "/orders", body: "apples")
            #expect(order.status == .accepted)
            // The desk takes the order on the main loop, in its own time: ask until it has (each answer is a round
            // trip through the loop, never a sleep).
            var tally = ""
            for _ in 0..<1_000 where !tally.hasPrefix("taken 1") {
                tally = try await Self.send(client, .get, "/orders/tally").body
            }
            #expect(tally == "taken 1\nwaiting 0\napples 1\n")
            #expect(try await Self.send(client, .post, "/orders", body: "two words").status == .badRequest)
        }
        desk.clear()
    }
}
