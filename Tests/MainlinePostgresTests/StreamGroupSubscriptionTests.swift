#if Postgres
import MainlineEvents
import MainlinePostgres
import PostgresNIO
import Testing
import _MainlineTestSupport

/// A consumer group member in this process: its mailbox's overflow, acknowledgement, resync and misuse.
@MainActor
@Suite("StreamGroupSubscription: one member's mailbox, acknowledgements and errors", .serialized)
struct StreamGroupSubscriptionTests {
    @Test func aFullRejectMailboxHoldsTheGroupsEventsBackForItsMemberWithoutLosingThem() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for index in 1...30 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
            }
            let subscriber = StreamSubscriber(
                configuration: cluster.configuration,
                options: testOptions { $0.groupWindow = 10 }
            )
            let mailbox = BoundedMailbox<StreamDelivery<String>>(capacity: 3, overflow: .reject)
            let member = try subscriber.subscribe(to: "s", group: "g", from: .after(0), into: mailbox) {
                try decodeText($0)
            }
            var taken: [Int64] = []
            try await whileRunning(subscriber) {
                while taken.count < 30 {
                    try await waitUntil("a delivery", state: { "took \(taken.count); \(member.counts)" }) {
                        mailbox.counts.accepted > mailbox.counts.delivered
                    }
                    for case .event(let event) in mailbox.takeAll() {
                        taken.append(event.sequence)
                        member.acknowledge(event)
                    }
                }
                try await waitUntil("the acknowledgements written", state: { "\(member.counts)" }) {
                    try await cluster.withConnection { connection in
                        try await count("SELECT count(*) FROM mainline_stream_claims", on: connection)
                    } == 0
                }
            }
            #expect(taken == Array(1...30))
            #expect(member.counts.refused > 0, "the mailbox never refused: the test proves less than it claims")
            #expect(member.counts.acknowledged == 30 && member.counts.redelivered == 0)
            #expect(member.unacknowledged == 0)
        }
    }

    @Test func eventsPrunedBeforeTheGroupHandledThemReachAMemberAsOneResync() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for index in 1...10 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
                #expect(try await publisher.prune(StreamRetention(maximumCount: 5)) == 5)
            }
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
            let collector = Collector()
            let member = try subscriber.subscribe(to: "s", group: "g", from: .after(0), into: collector.mailbox) {
                try decodeText($0)
            }
            try await whileRunning(subscriber) {
                try await waitUntil("events 6 to 10", state: { collector.progress }) { collector.events.count == 5 }
            }
            #expect(collector.resyncs == [StreamResync(stream: "s", lastDelivered: 0, resumesAfter: 5)])
            #expect(collector.sequences == Array(6...10))
            #expect(member.counts.resyncs == 1)
        }
    }

    /// Leases are renewed while the member's process and connection live: a member slower than its lease keeps its
    /// events, and the other member never receives them.
    @Test func aSlowMemberWhoseProcessLivesKeepsItsEventsPastItsLease() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for index in 1...20 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
            }
            let (slow, fast) = twoSubscribers(cluster, lease: .milliseconds(600), window: 10)
            let (slowMember, slowMailbox) = try member(of: slow, capacity: 100)
            let (fastMember, fastMailbox) = try member(of: fast, capacity: 100)
            var held: [StreamEvent<String>] = []
            var handled: [StreamEvent<String>] = []
            try await whileRunning(slow) {
                try await waitUntil("the slow member's window", state: { "\(slowMailbox.counts)" }) {
                    slowMailbox.counts.accepted == 10
                }
                for case .event(let event) in slowMailbox.takeAll() { held.append(event) }
                let claimed = try await query("SELECT extract(epoch FROM clock_timestamp())::float8", cluster)
                try await whileRunning(fast) {
                    // Two leases after the claim, the slow member's leases must have been renewed past it; had they
                    // not, they would have expired, and the fast member (reclaiming every third of a lease) would
                    // have received the events.
                    let renewed: PostgresQuery = """
                        SELECT count(*)::float8 FROM mainline_stream_claims
                        WHERE member = \(slowMember.member) AND lease_until > to_timestamp(\(claimed + 1.2))
                        """
                    try await waitUntil(
                        "the other events handled, and the slow member's leases renewed past two leases",
                        state: { "handled \(handled.count); \(fastMember.counts); \(slowMember.counts)" }
                    ) {
                        for case .event(let event) in fastMailbox.takeAll() {
                            handled.append(event)
                            fastMember.acknowledge(event)
                        }
                        // A redelivery ends the wait too: then the expectations below say what went wrong.
                        guard handled.count >= 10 else { return false }
                        if fastMember.counts.redelivered > 0 { return true }
                        return try await query(renewed, cluster) == 10
                    }
                    for event in held { slowMember.acknowledge(event) }
                    try await waitUntil("every acknowledgement written", state: { "\(slowMember.counts)" }) {
                        try await query("SELECT count(*)::float8 FROM mainline_stream_claims", cluster) == 0
                    }
                }
            }
            #expect(held.map(\.sequence) == Array(1...10))
            #expect(handled.map(\.sequence).sorted() == Array(11...20))
            #expect(fastMember.counts.redelivered == 0 && fastMailbox.counts.accepted == 10)
            #expect(slowMember.counts.staleAcknowledgements == 0 && slowMember.counts.acknowledged == 10)
        }
    }

    /// A subscriber that stops lets the other members take everything its member held at once, not at its lease's end:
    /// what it claimed but never placed goes back uncounted (its delivery count unchanged), and what it placed is
    /// taken over when its session ends, as a redelivery.
    @Test func aStoppingSubscriberLetsTheOtherMembersTakeAllItsClaimsAtOnce() async throws {
        try await PostgresTestCluster.with { cluster in
            try await withPublisher(cluster) { publisher in
                for index in 1...10 { try await publisher.publish(bytes: Array("\(index)".utf8), to: "s") }
            }
            // A lease far longer than the test: anything the other member receives was handed back, not expired.
            let (stopping, staying) = twoSubscribers(cluster, lease: .seconds(600), window: 10)
            let (stoppingMember, small) = try member(of: stopping, capacity: 3)
            let (stayingMember, large) = try member(of: staying, capacity: 100)
            try await whileRunning(stopping) {
                try await waitUntil("the whole window claimed, three placed", state: { "\(stoppingMember.counts)" }) {
                    let claimed = try await query(
                        "SELECT count(*)::float8 FROM mainline_stream_claims WHERE member IS NOT NULL",
                        cluster
                    )
                    return claimed == 10 && small.counts.accepted == 3 && stoppingMember.counts.refused > 0
                }
            }
            var handled: [StreamEvent<String>] = []
            try await whileRunning(staying) {
                try await waitUntil("all ten events", state: { "\(stayingMember.counts)" }) {
                    for case .event(let event) in large.takeAll() {
                        handled.append(event)
                        stayingMember.acknowledge(event)
                    }
                    return handled.count >= 10
                }
            }
            let sorted = handled.sorted { $0.sequence < $1.sequence }
            #expect(sorted.map(\.sequence) == Array(1...10))
            #expect(sorted.prefix(3).allSatisfy { $0.deliveryCount == 2 }, "placed by the stopped member: redelivered")
            #expect(sorted.dropFirst(3).allSatisfy { $0.deliveryCount == 1 }, "never placed, so never delivered before")
            let kept = try await query(
                "SELECT count(*)::float8 FROM mainline_stream_claims WHERE member = \(stoppingMember.member)",
                cluster
            )
            #expect(kept == 0, "nothing stays the stopped member's once its session ended")
        }
    }

    /// A member that joins again on a new connection keeps what its consumer acknowledged until the acknowledgement
    /// is written. Its consumer here acknowledges all the time, one event every 5 ms from a task of its own (slower
    /// than a reconnect, 50 ms for a window of 20), so acknowledgements arrive while a rejoin hands back what the member
    /// does not hold; had those been handed back, the
    /// member would claim them again and deliver them twice (with an unchanged delivery count: only a set of sequences
    /// shows it). The connection is ended after every 30 or more events, 15 times, then the rest drains: the events
    /// between two checks depend on the machine's pace (66 on average once, under the whole suite), so the stream is
    /// long enough for 15 rejoins at four times that.
    @Test func aMemberJoiningAgainWhileItsConsumerAcknowledgesDeliversNoEventTwice() async throws {
        try await PostgresTestCluster.with { cluster in
            let total = 2_000
            try await withPublisher(cluster) { publisher in
                for chunk in 0..<(total / 100) {
                    let messages = (1...100).map { StreamPublisher.Message(ByteBuffer(string: "\(chunk * 100 + $0)")) }
                    try await publisher.publish(contentsOf: messages, to: "s")
                }
            }
            let options = testOptions { $0.groupWindow = 20 }
            let subscriber = StreamSubscriber(configuration: cluster.configuration, options: options)
            let (member, mailbox) = try member(of: subscriber, capacity: 100)
            let taken = AsyncStream.makeStream(of: StreamEvent<String>.self)
            var received: [Int64] = []
            var token: SimpleEventToken?
            mailbox.event.addObserver(&token) { _ in
                for case .event(let event) in mailbox.takeAll() {
                    received.append(event.sequence)
                    taken.continuation.yield(event)
                }
            }
            let acknowledging = Task {
                for await event in taken.stream {
                    member.acknowledge(event)
                    try? await Task.sleep(for: .milliseconds(5))
                }
            }
            defer { acknowledging.cancel() }
            var reconnects = 0
            try await whileRunning(subscriber) {
                while received.count < total {
                    let before = received.count
                    try await waitUntil(
                        "more events on a connection",
                        state: { "received \(received.count); \(member.counts); \(progress(of: subscriber))" }
                    ) {
                        received.count >= min(before + 30, total) && subscriber.counts.isConnected
                    }
                    if received.count < total, reconnects < 15,
                        try await cluster.terminateBackends(applicationName: options.applicationName) == 1
                    {
                        reconnects += 1
                    }
                }
            }
            #expect(reconnects >= 10, "too few rejoins to show anything")
            #expect(received.count == Set(received).count, "delivered twice: \(received.count - Set(received).count)")
            #expect(Set(1...Int64(total)).subtracting(received).isEmpty, "never delivered")
            _ = token
        }
    }

    @Test func misusedGroupSubscriptionsAreTypedErrors() throws {
        let subscriber = StreamSubscriber(
            configuration: .init(host: "localhost", username: "u", password: nil, database: nil, tls: .disable)
        )
        let mailbox = BoundedMailbox<StreamDelivery<String>>(capacity: 10, overflow: .reject)
        #expect {
            try subscriber.subscribe(to: "s", group: "", into: mailbox, decode: decodeText)
        } throws: { error in
            guard case .invalidGroupName("", _) = error as? StreamError else { return false }
            return true
        }
        #expect {
            try subscriber.subscribe(to: "s", group: "g", from: .stored("n"), into: mailbox, decode: decodeText)
        } throws: { error in
            guard case .unsupportedStart(.stored("n", initially: .latest), _) = error as? StreamError else {
                return false
            }
            return true
        }
        _ = try subscriber.subscribe(to: "s", group: "g", into: mailbox, decode: decodeText)
        #expect {
            try subscriber.subscribe(to: "s", group: "h", into: mailbox, decode: decodeText)
        } throws: { error in
            guard case .mailboxAlreadyTracked = error as? StreamError else { return false }
            return true
        }
    }

    /// The one number `query` answers, on a connection of its own.
    /// A member of group "g" of stream "s" (from its start) in `subscriber`, into a new text mailbox of `capacity`
    /// that refuses when full.
    private func member(
        of subscriber: StreamSubscriber,
        capacity: Int
    ) throws -> (StreamGroupSubscription, BoundedMailbox<StreamDelivery<String>>) {
        let mailbox = BoundedMailbox<StreamDelivery<String>>(capacity: capacity, overflow: .reject)
        let member = try subscriber.subscribe(to: "s", group: "g", from: .after(0), into: mailbox) {
            try decodeText($0)
        }
        return (member, mailbox)
    }

    /// Two subscribers of `cluster` whose members have `lease` and `window`.
    private func twoSubscribers(
        _ cluster: PostgresTestCluster,
        lease: Duration,
        window: Int
    ) -> (StreamSubscriber, StreamSubscriber) {
        let options = testOptions { options in
            options.groupLease = lease
            options.groupWindow = window
        }
        return (
            StreamSubscriber(configuration: cluster.configuration, options: options),
            StreamSubscriber(configuration: cluster.configuration, options: options)
        )
    }

    private func query(_ query: PostgresQuery, _ cluster: PostgresTestCluster) async throws -> Double {
        try await cluster.withConnection { connection in
            var value = 0.0
            for try await number in try await connection.query(query, logger: .init(label: "test")).decode(Double.self)
            {
                value = number
            }
            return value
        }
    }

    private func count(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> Int64 {
        var total: Int64 = 0
        for try await value in try await connection.query(query, logger: .init(label: "test")).decode(Int64.self) {
            total = value
        }
        return total
    }
}
#endif
