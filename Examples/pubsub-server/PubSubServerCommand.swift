// pubsub-server — a line-protocol publish/subscribe server on 127.0.0.1.
//
// SwiftNIO owns the sockets; the main loop owns the topics and the clients. Each client is a lifecycle host with its
// own view model, resumed while its socket takes bytes and paused while it does not; what is published for a paused
// client waits in a KeyedMailbox, the latest message per topic. Run it with:
//
//     swift run --package-path Examples pubsub-server [--port 7420]
//     swift run --package-path Examples pubsub-server --help
//
// and talk to it with `nc 127.0.0.1 7420`. SIGTERM or SIGINT (Ctrl-C) stops it gracefully.

import ArgumentParser
import Foundation
import Logging
import Mainline
import MainlineServiceLifecycle
import ServiceLifecycle

/// pubsub-server's command line: `--port`, `--flush-deadline-ms`, `--idle-timeout-s`, `--max-clients`, and `--help`.
///
/// An `AsyncParsableCommand` with an `async` ``run()``: the server is a `ServiceGroup`, and the loop is its guest
/// (`MainLoopService`), pumped from the main queue while the async main waits. A bad flag exits 64
/// (`ExitCode.validationFailure`) naming it; a server that cannot start (a port in use) exits 1.
@main
struct PubSubServerCommand: AsyncParsableCommand {
    static let portRange = 0...65_535
    static let flushDeadlineRange = 0...600_000
    static let idleTimeoutRange = 1...86_400
    static let maximumClientsRange = 1...1_000_000

    static let configuration = CommandConfiguration(
        commandName: "pubsub-server",
        abstract: "A line-protocol publish/subscribe server on 127.0.0.1.",
        discussion: """
            Clients connect over TCP (nc 127.0.0.1 7420) and send one command per line: SUB <topic>, UNSUB <topic>, \
            PUB <topic> <message>, STATS, DEBUG, QUIT. Each subscriber gets MSG <topic> <message> for what is \
            published; a client that stops reading gets the latest message of each topic when it reads again, and \
            STATS counts the ones it missed. The server prints the address it listens on, then only what goes wrong; \
            kill -USR1 <pid> prints the main loop's snapshot (what DEBUG answers).

            Press Ctrl-C (or send SIGTERM) to stop it: it stops accepting, gives each client up to \
            --flush-deadline-ms to take what is queued, closes every connection and exits 0.
            """
    )

    @Option(help: ArgumentHelp("TCP port on 127.0.0.1 (0 to 65535; 0 picks a free one).", valueName: "n"))
    var port = 7420

    @Option(
        name: .customLong("flush-deadline-ms"),
        help: ArgumentHelp(
            "At shutdown, how long clients get to take what is queued for them, in milliseconds (0 to 600000).",
            valueName: "ms"
        )
    )
    var flushDeadlineMilliseconds = 2_000

    @Option(
        name: .customLong("idle-timeout-s"),
        help: ArgumentHelp(
            "Close a client that holds no subscription after this many seconds without a command line (1 to 86400).",
            valueName: "s"
        )
    )
    var idleTimeoutSeconds = 300

    @Option(
        name: .customLong("max-clients"),
        help: ArgumentHelp(
            "Clients connected at once (1 to 1000000); the next one gets ERR server full.",
            valueName: "n"
        )
    )
    var maximumClients = 10_000

    func validate() throws {
        try Self.check("--port", port, in: Self.portRange)
        try Self.check("--flush-deadline-ms", flushDeadlineMilliseconds, in: Self.flushDeadlineRange)
        try Self.check("--idle-timeout-s", idleTimeoutSeconds, in: Self.idleTimeoutRange)
        try Self.check("--max-clients", maximumClients, in: Self.maximumClientsRange)
    }

    func run() async throws {
        var logger = Logger(label: "pubsub-server")
        logger.logLevel = .notice

        let broker = await Broker(idleTimeout: .seconds(idleTimeoutSeconds), maximumClients: maximumClients)
        let server = PubSubServer(
            port: port,
            flushDeadline: .milliseconds(flushDeadlineMilliseconds),
            broker: broker,
            logger: logger
        )
        // The loop service first: the group stops services in reverse order, so the server drains before the loop
        // stops.
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    // The watchdog logs any callback that holds the loop for more than 250 ms, naming it by its post
                    // label.
                    .init(service: MainLoopService(logger: logger, stallThreshold: .milliseconds(250))),
                    .init(service: server),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        do {
            try await group.run()
        } catch {
            // Not a usage error: the command line was fine, the server could not run (a port in use, say).
            FileHandle.standardError.write(Data("pubsub-server: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }

    /// Throws a `ValidationError` naming `flag` unless `value` is in `range`.
    private static func check(_ flag: String, _ value: Int, in range: ClosedRange<Int>) throws {
        guard !range.contains(value) else { return }
        throw ValidationError("\(flag) needs a number from \(range.lowerBound) to \(range.upperBound), got '\(value)'")
    }
}
