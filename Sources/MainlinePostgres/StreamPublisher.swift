#if Postgres
import CoreMetrics
import Foundation
import Logging
import MainlineLoop
import PostgresNIO

/// Publishes events to named streams: one row in the outbox table and one wake-up hint per event.
///
/// All operations on `StreamPublisher` are thread-safe: publish from any task or thread, or from the loop inside a
/// `Task`.
///
/// Each ``publish(_:to:)`` is one statement, so one transaction: it takes the stream's next sequence (the row lock on
/// the stream's head serialises the writers of one stream until they commit), inserts the event, and sends
/// `NOTIFY` with the hint `"<sequence> <stream>"` on commit. Sequences are therefore gapless, and a reader never
/// sees sequence *n + 1* before *n*. Streams don't wait for each other.
///
/// ```swift
/// let client = PostgresClient(configuration: configuration)
/// let publisher = StreamPublisher(client: client)
/// async let running: Void = client.run()  // the pool must run while you publish
/// let sequence = try await publisher.publish(json: OrderPlaced(id: 42), to: "orders")
/// ```
///
/// To publish atomically with your own writes (the transactional outbox), use
/// ``publish(_:to:on:schema:logger:metricsFactory:)`` with the connection of your transaction.
///
/// - Important: A transaction that publishes to a stream holds that stream's head until it ends; other publishers
///   to the stream wait for it. Keep such transactions short.
public final class StreamPublisher: Sendable {
    /// The tables and channel it writes to.
    public let schema: StreamSchema
    private let client: PostgresClient
    private let logger: Logger
    private let metricsFactory: any MetricsFactory
    /// Whether ``StreamSchema/create(on:logger:)`` ran. Protected by its lock; a race runs it twice, harmlessly.
    private let schemaCreated = _Locked(false)

    /// Creates a publisher that borrows connections from `client`.
    ///
    /// - Parameters:
    ///   - client: The pool; `client.run()` must be running while you publish.
    ///   - schema: The tables and channel; the subscribers must use the same.
    ///   - logger: Where it logs.
    ///   - metricsFactory: Where `mainline_stream_published` (dimension `stream`) goes; the global `MetricsSystem`
    ///     unless a test passes its own.
    public init(
        client: PostgresClient,
        schema: StreamSchema = .default,
        logger: Logger = Logger(label: "mainline.postgres.publisher"),
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.client = client
        self.schema = schema
        self.logger = logger
        self.metricsFactory = metricsFactory
    }

    /// Publishes `payload` as the next event of `stream`. Thread-safe.
    ///
    /// - Parameters:
    ///   - payload: The event's bytes; any size PostgreSQL's `bytea` takes (the hint does not carry it).
    ///   - stream: The stream's name.
    /// - Returns: The event's sequence in the stream (1 for a stream's first event).
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``, or what PostgreSQL reports (`PSQLError`).
    @discardableResult
    public func publish(_ payload: ByteBuffer, to stream: String) async throws -> Int64 {
        try StreamSchema.validate(stream: stream)
        return try await withSchema { connection in
            try await Self.publish(
                payload,
                to: stream,
                on: connection,
                schema: self.schema,
                logger: self.logger,
                metricsFactory: self.metricsFactory
            )
        }
    }

    /// The sequence of `stream`'s last published event now: 0 for a stream nothing was published to. Thread-safe.
    ///
    /// Subscribe `from: .after(lastSequence)` to receive exactly what is published from now on, whatever happens
    /// before the subscriber first reads the stream (`.latest` is settled only then).
    ///
    /// - Parameter stream: The stream's name.
    /// - Returns: The last sequence (retention never lowers it).
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``, or what PostgreSQL reports (`PSQLError`).
    public func lastSequence(of stream: String) async throws -> Int64 {
        try StreamSchema.validate(stream: stream)
        return try await withSchema { connection in
            let query: PostgresQuery = """
                SELECT last_sequence FROM \(unescaped: self.schema.headsTable) WHERE stream = \(stream)
                """
            var last: Int64 = 0
            for try await value in try await connection.query(query, logger: self.logger).decode(Int64.self) {
                last = value
            }
            return last
        }
    }

    /// Runs `body` on a pooled connection, creating the tables first if this publisher has not done so yet.
    private func withSchema<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    )
        async throws -> T
    {
        let needsSchema = !schemaCreated.withLock { $0 }
        return try await client.withConnection { connection in
            if needsSchema {
                try await self.schema.create(on: connection, logger: self.logger)
                self.schemaCreated.withLock { $0 = true }
            }
            return try await body(connection)
        }
    }

    /// Publishes `bytes` as the next event of `stream`. Thread-safe.
    ///
    /// - Parameters:
    ///   - bytes: The event's bytes.
    ///   - stream: The stream's name.
    /// - Returns: The event's sequence in the stream.
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``, or what PostgreSQL reports.
    @discardableResult
    public func publish(bytes: some Sequence<UInt8>, to stream: String) async throws -> Int64 {
        try await publish(ByteBuffer(bytes: bytes), to: stream)
    }

    /// Publishes `value` encoded as JSON as the next event of `stream`. Thread-safe.
    ///
    /// - Parameters:
    ///   - value: The event; subscribe with ``StreamSubscriber/subscribe(to:from:as:into:)`` to decode it.
    ///   - stream: The stream's name.
    /// - Returns: The event's sequence in the stream.
    /// - Throws: `EncodingError`, ``StreamError/invalidStreamName(_:reason:)``, or what PostgreSQL reports.
    @discardableResult
    public func publish(json value: some Encodable, to stream: String) async throws -> Int64 {
        try await publish(ByteBuffer(data: try JSONEncoder().encode(value)), to: stream)
    }

    /// Publishes `payload` on `connection`, inside whatever transaction it has open: the event commits (and its
    /// hint is sent) with that transaction, or not at all. Thread-safe.
    ///
    /// Does not create the tables: run ``StreamSchema/create(on:logger:)`` once beforehand.
    ///
    /// - Parameters:
    ///   - payload: The event's bytes.
    ///   - stream: The stream's name.
    ///   - connection: The connection (in a transaction, or not).
    ///   - schema: The tables and channel.
    ///   - logger: The logger for the statement.
    ///   - metricsFactory: Where `mainline_stream_published` goes (counted when the statement ran, even if the
    ///     transaction later rolls back).
    /// - Returns: The event's sequence in the stream.
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``, or what PostgreSQL reports.
    @discardableResult
    public static func publish(
        _ payload: ByteBuffer,
        to stream: String,
        on connection: PostgresConnection,
        schema: StreamSchema = .default,
        logger: Logger,
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) async throws -> Int64 {
        try StreamSchema.validate(stream: stream)
        // One statement: the head's row lock (taken by the upsert) is held until commit, so the writers of one stream
        // run one at a time and commit in sequence order; the hint is queued and sent on commit.
        let query: PostgresQuery = """
            WITH head AS (
                INSERT INTO \(unescaped: schema.headsTable) AS h (stream, last_sequence) VALUES (\(stream), 1)
                ON CONFLICT (stream) DO UPDATE SET last_sequence = h.last_sequence + 1
                RETURNING last_sequence
            ), event AS (
                INSERT INTO \(unescaped: schema.eventsTable) (stream, sequence, payload)
                SELECT \(stream), last_sequence, \(payload) FROM head
                RETURNING sequence
            )
            SELECT sequence, pg_notify(\(schema.channel), sequence::text || ' ' || \(stream))::text FROM event
            """
        var sequence: Int64?
        for try await (value, _) in try await connection.query(query, logger: logger).decode((Int64, String?).self) {
            sequence = value
        }
        guard let sequence else {
            // Unreachable: both inserts either happen or fail the statement.
            preconditionFailure("BUG DETECTED: publishing to \(stream.debugDescription) returned no sequence")
        }
        Counter(label: "mainline_stream_published", dimensions: [("stream", stream)], factory: metricsFactory)
            .increment()
        return sequence
    }

    /// Deletes the events `retention` no longer keeps, in every stream. Thread-safe.
    ///
    /// Run it periodically (a loop timer, a cron job). Subscribers that had not read the deleted events yet receive
    /// ``StreamDelivery/resync(_:)``.
    ///
    /// - Parameter retention: What to keep.
    /// - Returns: How many events it deleted.
    /// - Throws: What PostgreSQL reports.
    @discardableResult
    public func prune(_ retention: StreamRetention) async throws -> Int {
        try await client.withConnection { connection in
            try await retention.prune(on: connection, schema: self.schema, logger: self.logger)
        }
    }
}
#endif
