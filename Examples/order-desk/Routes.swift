import Foundation
import Hummingbird
import Mainline

/// The desk's HTTP routes: `POST /orders` (the body is the item), `GET /orders/tally`, `GET /desk` (open or closed,
/// and for how long it has been open), and `POST /desk/close` and `POST /desk/open`, which pause and resume the desk
/// (a closed desk takes no orders: they wait).
///
/// Handlers run on SwiftNIO's event loops and reach the desk's loop two ways: a producer that waits
/// (`BoundedMailbox.send(_:)`, policy `.suspend`) and a round trip (`Loop.run(_:)`). `loop` is the desk's: the main
/// loop in the service, a `TestLoop` in tests, where a handler that makes a round trip waits until the test steps the
/// loop.
func orderDeskRouter(desk: OrderDesk, loop: any Loop = MainLoop.main) -> Router<BasicRequestContext> {
    let router = Router()
    let orders = desk.orders
    router.post("orders") { request, _ -> HTTPResponse.Status in
        let body = try await request.body.collect(upTo: 256)
        let item = String(buffer: body).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !item.isEmpty, item.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw HTTPError(.badRequest, message: "an order is one item name: letters, digits and '-'")
        }
        // Waits while the desk is behind: the client's request takes longer, nothing piles up.
        try await orders.send(Order(item: item))
        return .accepted
    }
    router.get("orders/tally") { _, _ -> String in
        // To the loop and back: the body runs on the main actor, inside a loop iteration.
        try await loop.run { desk.tally } + "\n"
    }
    router.get("desk") { _, _ -> String in
        try await loop.run { desk.status } + "\n"
    }
    router.post("desk/close") { _, _ -> String in
        try await loop.run { desk.didPause() }
        return "closed\n"
    }
    router.post("desk/open") { _, _ -> String in
        try await loop.run { desk.didResume() }
        return "open\n"
    }
    return router
}
