// pubsub-server — a line-protocol publish/subscribe server on 127.0.0.1.
//
// SwiftNIO owns the sockets; the main loop owns the topics and the clients. Each client is a lifecycle host with its
// own view model, resumed while its socket takes bytes and paused while it does not; what is published for a paused
// client waits in a KeyedMailbox, the latest message per topic. Run it with:
//
//     swift run --package-path Examples pubsub-server [--port 7420]
//     swift run --package-path Examples pubsub-server --help
//
// and talk to it with `nc 127.0.0.1 7420`. SIGTERM or SIGINT (Ctrl-C) stops it gracefully. With `--inspect PATH`
// it serves its loop inspector on a Unix domain socket: `swift run mainline-console PATH` shows it live.
//
// With `--postgres postgres://user@host:port/database`, servers sharing one database behave as one server: topics
// are MainlinePostgres streams (`pubsub.<topic>`), every PUB is published through the database and every server
// reads the streams its clients subscribe to (ClusterLink.swift, Broker+Cluster.swift).

import ArgumentParser
import Foundation
import Logging
import Mainline
import MainlinePostgres
import MainlineServiceLifecycle
import ServiceLifecycle

/// pubsub-server's command line: `--port`, `--flush-deadline-ms`, `--idle-timeout-s`, `--max-clients`,
/// `--max-line-bytes`, `--slow-consumer-ms`, `--postgres`, `--group-lease-ms`, `--inspect`, and `--help`.
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
    static let maximumLineLengthRange = 128...16_777_216
    static let groupLeaseRange = 300...3_600_000
    static let slowConsumerRange = 10...3_600_000

    static let configuration = CommandConfiguration(
        commandName: "pubsub-server",
        abstract: "A line-protocol publish/subscribe server on 127.0.0.1.",
        discussion: """
            Clients connect over TCP (nc 127.0.0.1 7420) and send one command per line: SUB <topic>, \
            QSUB <group> <topic>, UNSUB <topic>, PUB <topic> <message>, STATS, DEBUG, QUIT. Each subscriber gets \
            MSG <topic> <message> for what is published, and each queue group (QSUB) gets it once, on one of its \
            clients; a client that stops reading gets the latest message of each topic when it reads again, and \
            STATS counts the ones it missed. A queue group's client that takes none of its bytes for \
            --slow-consumer-ms is a slow consumer: the group's messages not yet written to it go to the group's \
            other clients, and it gets none until it reads again. The server prints the address it listens on, then \
            only what goes wrong; kill -USR1 <pid> prints the main loop's snapshot (what DEBUG answers).

            With --postgres postgres://user[:password]@host[:port]/database, servers sharing one database behave \
            as one server: a SUB on one receives a PUB on another, every server delivers a topic's messages in one \
            order, and a server whose database connection drops catches up on reconnecting, losing nothing. A PUB \
            that cannot be published gets ERR PUB <topic> failed: <reason>. Without it, the server is on its own. \
            A queue group then spans every server: each message goes to one client of the group on any server, is \
            acknowledged once written to that client, and goes to another server as soon as the server holding it \
            dies (or --group-lease-ms after it stopped renewing, alive but stuck).

            Press Ctrl-C (or send SIGTERM) to stop it: it stops accepting, gives each client up to \
            --flush-deadline-ms to take what is queued, closes every connection and exits 0.

            With --inspect PATH the server serves its loop inspector on a Unix domain socket at PATH (owner-only; \
            removed when it stops): watch its loop, each client's view model and outgoing mailbox with \
            `swift run mainline-console PATH`. A socket that cannot be served exits 1.
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

    @Option(
        name: .customLong("max-line-bytes"),
        help: ArgumentHelp(
            "The longest command line a client may send, in bytes (128 to 16777216); a longer one gets ERR line too "
                + "long and the connection is closed.",
            valueName: "n"
        )
    )
    var maximumLineLength = Command.defaultMaximumLineLength

    @Option(
        name: .customLong("slow-consumer-ms"),
        help: ArgumentHelp(
            "A queue group's client that takes none of its bytes for this long, in milliseconds (10 to 3600000), is a "
                + "slow consumer: its group messages not yet written go to the group's other clients.",
            valueName: "ms"
        )
    )
    var slowConsumerMilliseconds = Int(QueueGroup.defaultSlowConsumerBound / .milliseconds(1))

    @Option(
        name: .customLong("postgres"),
        help: ArgumentHelp(
            "Share topics with every server of this PostgreSQL database: postgres://user[:password]@host[:port]/database "
                + "(no TLS).",
            valueName: "url"
        )
    )
    var postgres: String?

    @Option(
        name: .customLong("group-lease-ms"),
        help: ArgumentHelp(
            "With --postgres: how long a server that is alive but stuck keeps the queue group messages it holds, in "
                + "milliseconds (300 to 3600000); a server that dies loses them at once.",
            valueName: "ms"
        )
    )
    var groupLeaseMilliseconds = 10_000

    @Option(
        name: .customLong("inspect"),
        help: ArgumentHelp(
            "Serve the loop inspector on a Unix domain socket at this path (for mainline-console).",
            valueName: "path"
        )
    )
    var inspect: String?

    func validate() throws {
        try Self.check("--port", port, in: Self.portRange)
        try Self.check("--flush-deadline-ms", flushDeadlineMilliseconds, in: Self.flushDeadlineRange)
        try Self.check("--idle-timeout-s", idleTimeoutSeconds, in: Self.idleTimeoutRange)
        try Self.check("--max-clients", maximumClients, in: Self.maximumClientsRange)
        try Self.check("--max-line-bytes", maximumLineLength, in: Self.maximumLineLengthRange)
        try Self.check("--group-lease-ms", groupLeaseMilliseconds, in: Self.groupLeaseRange)
        try Self.check("--slow-consumer-ms", slowConsumerMilliseconds, in: Self.slowConsumerRange)
        _ = try databaseURL()
    }

    /// The database of `--postgres`, or `nil` without it.
    ///
    /// - Throws: A `ValidationError` naming the flag and what is wrong with the URL.
    private func databaseURL() throws -> PostgresURL? {
        guard let postgres else { return nil }
        do {
            return try PostgresURL(postgres)
        } catch {
            throw ValidationError(
                "--postgres needs postgres://user[:password]@host[:port]/database[?sslmode=…], but \(error.description)"
            )
        }
    }

    func run() async throws {
        var logger = Logger(label: "pubsub-server")
        logger.logLevel = .notice

        // First, before the broker and its clients exist: view models and mailboxes register with the inspector when
        // they are made.
        var inspector: LoopInspector?
        if let inspect {
            do {
                inspector = try LoopInspector.start(socketPath: inspect)
            } catch {
                FileHandle.standardError.write(Data("pubsub-server: \(error)\n".utf8))
                throw ExitCode.failure
            }
        }
        defer { inspector?.stop() }

        var cluster: ClusterLink?
        if let url = try databaseURL() {
            cluster = try await ClusterLink(
                url: url,
                maximumLineLength: maximumLineLength,
                groupLease: .milliseconds(groupLeaseMilliseconds),
                logger: logger
            )
        }
        let broker = await Broker(
            idleTimeout: .seconds(idleTimeoutSeconds),
            maximumClients: maximumClients,
            maximumLineLength: maximumLineLength,
            slowConsumerBound: .milliseconds(slowConsumerMilliseconds),
            cluster: cluster
        )
        let server = PubSubServer(
            port: port,
            flushDeadline: .milliseconds(flushDeadlineMilliseconds),
            broker: broker,
            maximumLineLength: maximumLineLength,
            logger: logger
        )
        // The loop service first: the group stops services in reverse order, so the server drains before the loop
        // stops (and, in cluster mode, before the listener and the pool stop).
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            // The watchdog logs any callback that holds the loop for more than 250 ms, naming it by its post label.
            .init(service: MainLoopService(logger: logger, stallThreshold: .milliseconds(250)))
        ]
        if let cluster {
            services.append(.init(service: cluster.client))
            services.append(.init(service: cluster.subscriber))  // a Service: it returns at the graceful shutdown
        }
        services.append(.init(service: server))
        let group = ServiceGroup(
            configuration: .init(
                services: services,
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
