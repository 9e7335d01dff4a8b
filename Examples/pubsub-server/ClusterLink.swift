import Foundation
import Logging
import Mainline
import MainlinePostgres
import NIOCore
import PostgresNIO

/// The server's link to the database in cluster mode (`--postgres`): every topic is the stream `pubsub.<topic>`,
/// every `PUB` is published to it, and the topics with local subscribers are read from it, so that every server of
/// one database delivers each topic's messages in one order, the stream's.
///
/// Must be used on the main actor: the feeds (``TopicFeed``, one per topic with local subscribers) live on the main
/// loop beside the broker. The pool (``client``) and the listener (``subscriber``) run as services of the server's
/// `ServiceGroup` (``PubSubServerCommand``).
///
/// - A topic's feed opens on its first local `SUB`: the stream's last sequence is read through the pool and the
///   subscription starts after it, so a `SUB`'s `OK` means every message published from then on reaches it (a
///   `.latest` start would be taken later, when the listener first reads the stream, and could miss the first ones).
/// - It closes (its subscription is cancelled) when the last local subscriber leaves.
/// - A queue group (`QSUB`) has one ``GroupFeed`` per server while the server has clients of it: a member of the
///   consumer group of the topic's stream (`ClusterLink+Groups.swift`).
/// - The listener is named `pubsub-server-<pid>` in `pg_stat_activity`, the pool's connections
///   `pubsub-server-<pid>-publish`: an operator (or a test) can end one server's listener with
///   `pg_terminate_backend`; it reconnects and catches up from each feed's position, losing nothing.
@MainActor
final class ClusterLink {
    /// Every topic's stream is this prefix and the topic's name.
    static let streamPrefix = "pubsub."
    /// How long a `PUB` or the first `SUB` of a topic waits for the database before the client gets `ERR`.
    static let answerDeadline: Duration = .seconds(10)

    /// The connection pool `PUB`s and positions go through; a service of the server.
    let client: PostgresClient
    /// Publishes each `PUB` to its topic's stream.
    let publisher: StreamPublisher
    /// The listener, one dedicated connection reading every open feed's stream; a service of the server.
    let subscriber: StreamSubscriber
    /// Where each message read from a topic's stream goes, in the stream's order: the broker's local fan-out.
    var onMessage: ((_ topic: String, _ message: String) -> Void)?
    /// Where each message a queue group's member receives goes, with how to acknowledge it: the broker's group.
    var onGroupMessage:
        ((_ group: QueueGroupID, _ message: String, _ acknowledge: @escaping @MainActor () -> Void) -> Void)?
    let logger: Logger
    /// The feeds of the topics with local subscribers (or with a first `SUB` waiting for the stream's position).
    private var feeds: [String: TopicFeed] = [:]
    /// The members of the queue groups with local clients (or with a first `QSUB` waiting for the member to open).
    var groupFeeds: [QueueGroupID: GroupFeed] = [:]

    /// A link to the database at `url`; nothing connects until the services run.
    ///
    /// - Parameters:
    ///   - url: The database (`--postgres`).
    ///   - maximumLineLength: The longest line a client may send (`--max-line-bytes`): the listener reads fewer
    ///     events at once when they can be large.
    ///   - groupLease: How long a queue group's member keeps messages it has not acknowledged after its server stops
    ///     renewing them (`--group-lease-ms`): how soon a killed server's messages go to another server.
    ///   - logger: Where the pool and the listener log (reconnects at warning level).
    ///
    /// - Throws: `PostgresURL.Invalid` when the URL's TLS settings cannot be used (an unreadable `sslrootcert`).
    init(url: PostgresURL, maximumLineLength: Int, groupLease: Duration = .seconds(10), logger: Logger) throws {
        let name = "pubsub-server-\(ProcessInfo.processInfo.processIdentifier)"
        client = PostgresClient(
            configuration: try url.clientConfiguration(applicationName: "\(name)-publish"),
            backgroundLogger: logger
        )
        var publisherOptions = StreamPublisher.Options()
        publisherOptions.publishTimeout = Self.answerDeadline
        publisher = StreamPublisher(client: client, options: publisherOptions, logger: logger)
        var options = StreamSubscriber.Options()
        options.applicationName = name
        // A batch is held in memory until placed: about 4 MiB of messages at most, and never more than 100.
        options.batchSize = max(1, min(100, 4 * 1_024 * 1_024 / maximumLineLength))
        options.groupLease = groupLease
        subscriber = StreamSubscriber(
            configuration: try url.connectionConfiguration(),
            options: options,
            logger: logger
        )
        self.logger = logger
    }

    /// The stream that carries `topic`.
    ///
    /// - Throws: `StreamError.invalidStreamName` when the name cannot be a stream (it holds a control character, the
    ///   one thing a protocol topic may hold that a stream name may not).
    static func stream(for topic: String) throws(StreamError) -> String {
        let stream = streamPrefix + topic
        try StreamSchema.validate(stream: stream)
        return stream
    }

    /// Publishes `message` to `topic`'s stream; returns once it committed.
    ///
    /// - Throws: What went wrong (`StreamError`, `PSQLError`, the pool's error): the message was not published, or
    ///   (`StreamError.publishTimedOut` with `mayHaveCommitted`) may have been.
    func publish(_ message: String, to topic: String) async throws {
        let stream = try Self.stream(for: topic)
        try await publisher.publish(ByteBuffer(string: message), to: stream)
    }

    /// Counts one more local subscriber of `topic`; the first opens its feed, and every caller returns once the feed
    /// reads the stream from the position it had when the feed opened.
    ///
    /// - Throws: What kept the feed from opening; the subscriber is not counted then.
    func retain(_ topic: String) async throws {
        let feed: TopicFeed
        if let open = feeds[topic] {
            feed = open
        } else {
            let stream = try Self.stream(for: topic)
            feed = TopicFeed(topic: topic)
            feeds[topic] = feed
            feed.opening = Task { try await self.open(feed, stream: stream) }
        }
        feed.subscribers += 1
        do {
            try await feed.opening?.value
        } catch {
            release(feed)
            throw error
        }
    }

    /// Counts one local subscriber of `topic` less; the last one closes its feed.
    func release(_ topic: String) {
        if let feed = feeds[topic] { release(feed) }
    }

    /// Counts one subscriber of `feed` less; at none, forgets and closes it.
    private func release(_ feed: TopicFeed) {
        feed.subscribers -= 1
        guard feed.subscribers <= 0 else { return }
        if feeds[feed.topic] === feed { feeds[feed.topic] = nil }
        feed.close()
    }

    /// Reads the stream's position through the pool, then subscribes after it.
    private func open(_ feed: TopicFeed, stream: String) async throws {
        do {
            let head = try await position(of: stream)
            guard !feed.isClosed else { return }  // every subscriber left meanwhile
            try feed.start(
                subscriber.subscribe(to: stream, from: .after(head), into: feed.mailbox) { String(buffer: $0) },
                logger: logger
            ) { [weak self] topic, message in self?.onMessage?(topic, message) }
        } catch {
            // A later SUB tries afresh.
            if feeds[feed.topic] === feed { feeds[feed.topic] = nil }
            throw error
        }
    }

    /// The stream's last sequence now (0 when nothing was published to it), read through the pool.
    func position(of stream: String) async throws -> Int64 {
        try await publisher.lastSequence(of: stream)
    }

    /// A one-line reason for a client's `ERR`: a stream name's fault, the server's message and SQL state for a
    /// database error (`PSQLError`'s own description hides them), or the error's description.
    static func reason(_ error: any Error) -> String {
        let text: String
        if case .invalidStreamName(_, let reason)? = error as? StreamError {
            text = "the topic cannot be a stream: \(reason)"
        } else if let error = error as? PSQLError {
            var parts = ["database error \(error.code)"]
            if let message = error.serverInfo?[.message] { parts.append(message) }
            if let underlying = error.underlying { parts.append("\(underlying)") }
            text = parts.joined(separator: ": ")
        } else {
            text = "\(error)"
        }
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
