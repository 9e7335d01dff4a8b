// A process of its own for MainlinePostgresTests' two-process test: publishes `count` events to one stream and, when
// given the total to expect, also subscribes to that stream on its main loop and reports everything it saw:
//
//     mainline-postgres-publisher <port> <database> <stream> <name> <count> [<expected>]
//
// The payloads are "<name> <i>" for i in 1...count, published one after another (each waits for its commit). With
// <expected>, the process first subscribes from the stream's start (a `StreamSubscriber` placing into a
// `BoundedMailbox` observed on `MainLoop.main`, in guest mode) and waits until it listens, publishes, then waits until
// <expected> events arrived and prints one line "seen <sequence> <payload>" per event, in the order they arrived.
// Then it prints "published <count>" and exits 0, or prints the error and exits 1.

import Foundation

#if Postgres
import MainlineEvents
import MainlineLoop
import MainlinePostgres
import PostgresNIO
import _MainlineTestSupport

/// What the subscription delivered, taken on the main loop. Main actor only.
@MainActor final class Seen {
    let mailbox = BoundedMailbox<StreamDelivery<String>>(capacity: 1_000, overflow: .suspend)
    private(set) var lines: [String] = []
    private var token: SimpleEventToken?

    init() {
        mailbox.event.addObserver(&token) { [unowned self] _ in
            for delivery in self.mailbox.takeAll() {
                switch delivery {
                case .event(let event): self.lines.append("seen \(event.sequence) \(event.value)")
                case .resync(let resync): self.lines.append("resync \(resync.lastDelivered) \(resync.resumesAfter)")
                }
            }
        }
    }
}

/// Waits until `condition` holds (checked on the main actor every 10 ms), on progress: fails only when `state` — what
/// the probe has seen — has not changed for 60 seconds, so a busy machine makes the wait longer, never a failure.
@MainActor func wait(_ what: String, state: () -> String, until condition: () -> Bool) async throws {
    var standStill = StandStill<String>(limit: .seconds(60))
    while !condition() {
        let current = state()
        if standStill.hasStoodStill(current) {
            throw ProbeError("waited \(standStill.waited) for \(what), nothing moved for 60 s: \(current)")
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

struct ProbeError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

let arguments = CommandLine.arguments
guard (6...7).contains(arguments.count), let port = Int(arguments[1]), let count = Int(arguments[5]) else {
    print("usage: mainline-postgres-publisher <port> <database> <stream> <name> <count> [<expected>]")
    exit(2)
}
let (database, stream, name) = (arguments[2], arguments[3], arguments[4])
let expected = arguments.count == 7 ? Int(arguments[6]) : nil
let client = PostgresClient(
    configuration: .init(
        host: "127.0.0.1",
        port: port,
        username: "postgres",
        password: nil,
        database: database,
        tls: .disable
    )
)
// No deadline to speak of: the tests that run this probe wait on its progress, and a loaded machine starting many
// clusters at once can take longer than the default 10 s for a first publish.
var publisherOptions = StreamPublisher.Options()
publisherOptions.publishTimeout = .seconds(300)
let publisher = StreamPublisher(client: client, options: publisherOptions)
do {
    MainLoop.main.attachAsGuest()
    let seen = Seen()
    let subscriber = StreamSubscriber(
        configuration: .init(
            host: "127.0.0.1",
            port: port,
            username: "postgres",
            password: nil,
            database: database,
            tls: .disable
        )
    )
    if expected != nil {
        _ = try subscriber.subscribe(to: stream, from: .after(0), into: seen.mailbox) { buffer in
            String(decoding: buffer.readableBytesView, as: UTF8.self)
        }
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        if expected != nil {
            group.addTask { try await subscriber.run() }
            try await wait("listening", state: { "\(subscriber.counts)" }) { subscriber.counts.isConnected }
        }
        for index in 1...count {
            try await publisher.publish(bytes: Array("\(name) \(index)".utf8), to: stream)
        }
        if let expected {
            try await wait("\(expected) events", state: { "seen \(seen.lines.count) events; \(subscriber.counts)" }) {
                seen.lines.count >= expected
            }
            print(seen.lines.joined(separator: "\n"))
        }
        group.cancelAll()
    }
    print("published \(count)")
} catch {
    print("error: \(error)")
    exit(1)
}
#else
print("mainline-postgres-publisher: built without the Postgres trait (swift build --traits Postgres)")
exit(1)
#endif
