// A process of its own for MainlinePostgresTests' consumer group tests: one member of a group, on its own main loop.
//
//     mainline-postgres-member <port> <database> <stream> <group> <last> <lease-ms> <ack|hold>
//
// It joins <group> of <stream> (from the stream's start, with leases of <lease-ms>) through a `StreamSubscriber`
// placing into a `BoundedMailbox` observed on `MainLoop.main` (guest mode), and prints "listening" once its subscriber
// listens. For each event it takes it prints one line, at once (unbuffered, so a `kill -9` loses nothing printed):
//
//     got <sequence> <deliveryCount> <taken-ns> <acknowledged-ns> <payload>
//
// with CLOCK_MONOTONIC times (comparable across processes) of the take and, in `ack` mode, of the acknowledgement
// 5 ms after it, as if the work took that long (printed then; 0 in `hold` mode, which acknowledges nothing: a member
// that dies mid-work). In `ack` mode it exits 0 with "done <count>" once the group has handed out every event up to
// <last> and holds none unacknowledged; it exits 1 with "error: …" when nothing moved for 60 s (no event published,
// handed out, taken or acknowledged). A resync prints "resync <lastDelivered> <resumesAfter>".

import Foundation

#if canImport(Glibc)
import Glibc
#endif

#if Postgres
import Logging
import MainlineEvents
import MainlineLoop
import MainlinePostgres
import PostgresNIO
import _MainlineTestSupport

/// CLOCK_MONOTONIC in nanoseconds: one clock for every process of the machine.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// The member's consumer: takes on the main loop, prints, acknowledges. Main actor only.
@MainActor final class Member {
    let mailbox = BoundedMailbox<StreamDelivery<String>>(capacity: 1_000, overflow: .reject)
    var subscription: StreamGroupSubscription?
    private(set) var count = 0
    private var token: SimpleEventToken?

    init(acknowledges: Bool) {
        mailbox.event.addObserver(&token) { [unowned self] _ in
            var batch: [(event: StreamEvent<String>, taken: UInt64)] = []
            for delivery in self.mailbox.takeAll() {
                switch delivery {
                case .event(let event):
                    batch.append((event, monotonicNanoseconds()))
                case .resync(let resync):
                    emit("resync \(resync.lastDelivered) \(resync.resumesAfter)")
                }
            }
            guard acknowledges else {
                for (event, taken) in batch { self.report(event, taken: taken, acknowledged: 0) }
                return
            }
            // The work takes a little while, as real work does: the batch stays unacknowledged meanwhile, so another
            // member taking the next event of one of its keys would show.
            Task { @MainActor in
                try? await Task.sleep(for: .milliseconds(5))
                for (event, taken) in batch {
                    self.subscription?.acknowledge(event)
                    self.report(event, taken: taken, acknowledged: monotonicNanoseconds())
                }
            }
        }
    }

    private func report(_ event: StreamEvent<String>, taken: UInt64, acknowledged: UInt64) {
        count += 1
        emit("got \(event.sequence) \(event.deliveryCount) \(taken) \(acknowledged) \(event.value)")
    }
}

/// Writes `line` to standard output at once, unbuffered: a `kill -9` must not lose what was printed.
func emit(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(1, bytes.baseAddress, bytes.count) }
}

struct ProbeError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

let arguments = CommandLine.arguments
guard arguments.count == 8, let port = Int(arguments[1]), let last = Int64(arguments[5]),
    let leaseMilliseconds = Int(arguments[6]), ["ack", "hold"].contains(arguments[7])
else {
    print("usage: mainline-postgres-member <port> <database> <stream> <group> <last> <lease-ms> <ack|hold>")
    exit(2)
}
let (database, stream, group) = (arguments[2], arguments[3], arguments[4])
let acknowledges = arguments[7] == "ack"
let configuration = PostgresConnection.Configuration(
    host: "127.0.0.1",
    port: port,
    username: "postgres",
    password: nil,
    database: database,
    tls: .disable
)
var options = StreamSubscriber.Options()
options.groupLease = .milliseconds(leaseMilliseconds)
options.healthCheckInterval = .milliseconds(500)
options.healthCheckTimeout = .seconds(30)
do {
    MainLoop.main.attachAsGuest()
    let member = Member(acknowledges: acknowledges)
    let subscriber = StreamSubscriber(configuration: configuration, options: options)
    member.subscription = try subscriber.subscribe(to: stream, group: group, from: .after(0), into: member.mailbox) {
        String(decoding: $0.readableBytesView, as: UTF8.self)
    }
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await subscriber.run() }
        var standStill = StandStill<String>(limit: .seconds(60))
        while !subscriber.counts.isConnected {
            if standStill.hasStoodStill("\(subscriber.counts)") {
                throw ProbeError("not listening after \(standStill.waited): \(subscriber.counts)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        emit("listening")
        let connection = try await PostgresConnection.connect(
            configuration: configuration,
            id: 1,
            logger: Logger(label: "probe")
        )
        // Done when the group handed out everything up to `last` and holds nothing unacknowledged.
        // The stream's head too: events still being published are progress, not a member standing still.
        let query: PostgresQuery = """
            SELECT g.handed, (SELECT count(*) FROM mainline_stream_claims c WHERE c.stream = g.stream AND c.grp = g.grp),
                coalesce((SELECT h.last_sequence FROM mainline_stream_heads h WHERE h.stream = g.stream), 0)
            FROM mainline_stream_groups g WHERE g.stream = \(stream) AND g.grp = \(group)
            """
        var stall: ProbeError?
        while true {
            var state: (handed: Int64, claims: Int64, head: Int64) = (0, -1, 0)
            for try await row in try await connection.query(query, logger: Logger(label: "probe"))
                .decode((Int64, Int64, Int64).self)
            {
                state = row
            }
            if acknowledges && state.handed >= last && state.claims == 0 { break }
            let progress =
                "took \(member.count); stream head \(state.head); group handed \(state.handed), holds "
                + "\(state.claims) unacknowledged; "
                + "\(member.subscription.map { "\($0.counts)" } ?? "")"
            if standStill.hasStoodStill(progress) {
                // Who holds what, for the report: member (or "-"), rows, lowest sequence, whether the lease is live.
                let holders: PostgresQuery = """
                    SELECT coalesce(member, '-') || ' ' || count(*) || ' from ' || min(sequence) || ' live '
                        || bool_or(coalesce(lease_until > now(), false))
                    FROM mainline_stream_claims WHERE stream = \(stream) AND grp = \(group) GROUP BY member
                    """
                var held: [String] = []
                for try await line in try await connection.query(holders, logger: Logger(label: "probe"))
                    .decode(String.self)
                {
                    held.append(line)
                }
                let activity: PostgresQuery = """
                    SELECT pid || ' ' || coalesce(application_name, '') || ' ' || coalesce(state, '') || ' '
                        || coalesce(wait_event, '') || ' xact ' || coalesce((now() - xact_start)::text, '-') || ' '
                        || left(regexp_replace(query, '\\s+', ' ', 'g'), 60)
                    FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                    """
                for try await line in try await connection.query(activity, logger: Logger(label: "probe"))
                    .decode(String.self)
                {
                    held.append(line)
                }
                stall = ProbeError(
                    "waited \(standStill.waited) for the group to finish; nothing moved for 60 s: \(progress); "
                        + "I am \(member.subscription?.member ?? "?"); claims by member: \(held)"
                )
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        try? await connection.close()  // before it is freed: an unclosed connection traps in its deinit
        if let stall { throw stall }
        emit("done \(member.count)")
        tasks.cancelAll()
    }
} catch {
    emit("error: \(error)")
    exit(1)
}
#else
print("mainline-postgres-member: built without the Postgres trait (swift build --traits Postgres)")
exit(1)
#endif
