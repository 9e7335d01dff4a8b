// order-desk — an HTTP service (Hummingbird 2) whose state lives on the main loop.
//
// Handlers run on SwiftNIO's threads and reach the loop the async way: `try await orders.send(order)` waits while the
// desk's mailbox is full (a producer that waits), `try await loop.run { desk.tally }` is a round trip to the main
// loop, and the desk — a view model — takes the orders with `for await` in its resumed scope and counts the seconds
// it is open with a tick. Run it with:
//
//     swift run --package-path Examples order-desk [--port 8080] [--capacity 64]
//
// then `curl -d apples 127.0.0.1:8080/orders`, `curl 127.0.0.1:8080/orders/tally` and `curl 127.0.0.1:8080/desk`.
// SIGTERM or SIGINT stops it.

import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Mainline
import MainlineServiceLifecycle
import ServiceLifecycle

/// order-desk's command line: `--port`, `--capacity`, and `--help`.
///
/// An `AsyncParsableCommand`: the service is a `ServiceGroup` of the HTTP server and `MainLoopService`, which hosts
/// the main loop as a guest of the async main. A bad flag exits 64 naming it.
@main
struct OrderDeskCommand: AsyncParsableCommand {
    static let portRange = 0...65_535
    static let capacityRange = 1...100_000

    static let configuration = CommandConfiguration(
        commandName: "order-desk",
        abstract: "An HTTP order desk on 127.0.0.1 whose state lives on the main loop.",
        discussion: """
            POST /orders with an item name as the body queues an order (202); GET /orders/tally answers how many \
            orders the desk has taken, per item. The desk takes orders from a mailbox of --capacity places; while \
            it is full, requests wait for room instead of being dropped. POST /desk/close and POST /desk/open \
            pause and resume the desk; GET /desk answers whether it is open and how many seconds it has been open \
            in all. The server prints the address it listens on. Ctrl-C or SIGTERM stops it.
            """
    )

    @Option(help: ArgumentHelp("TCP port on 127.0.0.1 (0 to 65535; 0 picks a free one).", valueName: "n"))
    var port = 8080

    @Option(help: ArgumentHelp("How many orders may wait for the desk (1 to 100000).", valueName: "n"))
    var capacity = 64

    func validate() throws {
        guard Self.portRange.contains(port) else {
            throw ValidationError("--port needs a number from 0 to 65535, got '\(port)'")
        }
        guard Self.capacityRange.contains(capacity) else {
            throw ValidationError("--capacity needs a number from 1 to 100000, got '\(capacity)'")
        }
    }

    func run() async throws {
        var logger = Logger(label: "order-desk")
        logger.logLevel = .warning
        let desk = await OrderDesk(capacity: capacity)
        await desk.didResume()
        let app = Application(
            router: orderDeskRouter(desk: desk),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                // Unbuffered: a script (or a test) waits for this line to know the server accepts connections.
                let line = "order-desk listening on 127.0.0.1:\(channel.localAddress?.port ?? 0)\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            },
            logger: logger
        )
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                // The loop first: the group stops its services in reverse order, so the server finishes the
                // requests in flight — whose `send` and `run` still reach the loop — before the loop drains.
                services: [
                    .init(service: MainLoopService(logger: logger)),
                    .init(service: app),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
        let taken = await desk.tally.split(separator: "\n").first ?? ""
        FileHandle.standardOutput.write(Data("order-desk stopped; \(taken)\n".utf8))
    }
}
