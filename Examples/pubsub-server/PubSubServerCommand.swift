// pubsub-server — a line-protocol publish/subscribe server on 127.0.0.1.
//
// SwiftNIO owns the sockets; the main loop owns the topics and the clients. Each client is a lifecycle host with its
// own view model, resumed while its socket takes bytes and paused while it does not; what is published for a paused
// client waits in a KeyedMailbox, the latest message per topic. Run it with:
//
//     swift run --package-path Examples pubsub-server [--port 7420]
//
// and talk to it with `nc 127.0.0.1 7420`. SIGTERM or SIGINT (Ctrl-C) stops it gracefully.

import Foundation
import Logging
import Mainline
import MainlineServiceLifecycle
import ServiceLifecycle

let usage = """
    usage: pubsub-server [--port N] [--flush-deadline-ms N] [--idle-timeout-s N] [--max-clients N]
      --port N               TCP port on 127.0.0.1 (default 7420; 0 picks a free one)
      --flush-deadline-ms N  at shutdown, how long clients get to take what is queued (default 2000)
      --idle-timeout-s N     close a client with no subscription after N s without a command line (default 300)
      --max-clients N        clients connected at once; the next one gets ERR server full (default 10000)
    """

/// The value of `--name N`, which must be a whole number in `range`; `value` when the flag is absent. Anything else
/// ends the program with status 2 and a message naming the flag.
func option(_ name: String, in range: ClosedRange<Int>, default value: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name) else { return value }
    guard let text = arguments.dropFirst(index + 1).first, let number = Int(text), range.contains(number) else {
        FileHandle.standardError.write(
            Data(
                "pubsub-server: \(name) needs a number from \(range.lowerBound) to \(range.upperBound)\n\(usage)\n".utf8
            )
        )
        exit(2)
    }
    return number
}

if CommandLine.arguments.contains("--help") {
    print(usage)
    exit(0)
}
let port = option("--port", in: 0...65_535, default: 7420)
let flushDeadline = Duration.milliseconds(option("--flush-deadline-ms", in: 0...600_000, default: 2_000))
let idleTimeout = Duration.seconds(option("--idle-timeout-s", in: 1...86_400, default: 300))
let maximumClients = option("--max-clients", in: 1...1_000_000, default: 10_000)

var logger = Logger(label: "pubsub-server")
logger.logLevel = .notice

let broker = Broker(idleTimeout: idleTimeout, maximumClients: maximumClients)
let server = PubSubServer(port: port, flushDeadline: flushDeadline, broker: broker, logger: logger)
// The loop service first: the group stops services in reverse order, so the server drains before the loop stops.
let group = ServiceGroup(
    configuration: .init(
        services: [
            // The watchdog logs any callback that holds the loop for more than 250 ms, naming it by its post label.
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
    FileHandle.standardError.write(Data("pubsub-server: \(error)\n".utf8))
    exit(1)
}
