#if Postgres
import CoreMetrics
import Foundation
import Logging
import MainlineLoop
import PostgresNIO

/// Publishes events to named streams: rows in the outbox table, gathered into as few transactions as possible, and one
/// wake-up hint per transaction.
///
/// All operations on `StreamPublisher` are thread-safe: publish from any task or thread, or from the loop inside a
/// `Task`.
///
/// **Group commit.** The publishes to one stream that wait at the same time in one process share one statement, so
/// one transaction: it takes the stream's next N sequences (the row lock on the stream's head serialises the writers
/// of one stream until they commit), inserts the N events, and sends one `NOTIFY` with the hint
/// `"<last sequence> <stream>"` on commit. While a commit is in flight the next publishes queue, and the next commit
/// takes them all (up to ``Options/maximumBatchCount`` events and ``Options/maximumBatchBytes``). Every publish still
/// returns once its own event committed, with its own sequence; a commit that fails fails every publish in it, and
/// writes none of them. Sequences are gapless, the stream's order is the commit order (and, within one process, the
/// order the publishes were called in), and a reader never sees sequence *n + 1* before *n*. Streams don't wait for
/// each other. ``publish(contentsOf:to:timeout:)`` commits a batch you already have in one transaction.
///
/// **Deadlines.** A publish fails with ``StreamError/publishTimedOut(stream:timeout:mayHaveCommitted:)`` when it has
/// not committed within ``Options/publishTimeout`` (or its own `timeout`), also while the database is unreachable. A
/// publish that timed out before its statement was sent is never sent. Once sent, the database refuses to commit it
/// past the deadline; whether it committed just before is what an idempotency key tells: publish again with the same
/// `idempotencyKey` and it commits once, returning the sequence it committed as.
///
/// ```swift
/// let client = PostgresClient(configuration: try PostgresURL(databaseURL).clientConfiguration())
/// let publisher = StreamPublisher(client: client)
/// async let running: Void = client.run()  // the pool must run while you publish
/// let sequence = try await publisher.publish(json: OrderPlaced(id: 42), to: "orders", key: "customer-7")
/// ```
///
/// To publish atomically with your own writes (the transactional outbox), use
/// ``publish(_:to:key:on:schema:logger:metricsFactory:)`` with the connection of your transaction.
///
/// - Important: A transaction that publishes to a stream holds that stream's head until it ends; other publishers
///   to the stream wait for it. Keep such transactions short.
public final class StreamPublisher: Sendable {
    /// The tables and channel it writes to.
    public let schema: StreamSchema
    /// How it groups publishes and how long one may take.
    public let options: Options
    let client: PostgresClient
    let logger: Logger
    let metricsFactory: any MetricsFactory
    /// Whether ``StreamSchema/create(on:logger:)`` ran. Protected by its lock; a race runs it twice, harmlessly.
    private let schemaCreated = _Locked(false)
    /// Group commit's state machine: every stream's publishes and round, the deadline watch and the counts.
    /// Protected by its lock; the actions its events return are performed outside it.
    let groupCommit: _Locked<_Commits>

    /// Creates a publisher that borrows connections from `client`.
    ///
    /// - Parameters:
    ///   - client: The pool; `client.run()` must be running while you publish.
    ///   - schema: The tables and channel; the subscribers must use the same.
    ///   - options: The deadline of a publish and the bounds of a commit.
    ///   - logger: Where it logs.
    ///   - metricsFactory: Where `mainline_stream_published` (dimension `stream`) goes; the global `MetricsSystem`
    ///     unless a test passes its own.
    public init(
        client: PostgresClient,
        schema: StreamSchema = .default,
        options: Options = Options(),
        logger: Logger = Logger(label: "mainline.postgres.publisher"),
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.client = client
        self.schema = schema
        self.options = options
        self.logger = logger
        self.metricsFactory = metricsFactory
        self.groupCommit = _Locked(_Commits(options: options))
    }

    /// What it did so far, and what waits now. Thread-safe.
    public var counts: Counts { groupCommit.withLock { $0.counts } }

    /// Publishes `payload` as the next event of `stream`; returns once it committed. Thread-safe.
    ///
    /// Concurrent publishes to the stream commit together (group commit); this one returns with its own sequence.
    ///
    /// - Parameters:
    ///   - payload: The event's bytes; any size PostgreSQL's `bytea` takes (the hint does not carry it).
    ///   - stream: The stream's name.
    ///   - key: The event's key (``StreamEvent/key``): what consumer groups keep in order. `nil` for none.
    ///   - idempotencyKey: A name for this event, unique in its stream: publishing again with a key the stream has
    ///     (within its retention) commits nothing and returns the sequence the first one committed as. Give one when
    ///     you will retry after ``StreamError/publishTimedOut(stream:timeout:mayHaveCommitted:)`` or a lost
    ///     connection.
    ///   - timeout: How long it may take; ``Options/publishTimeout`` when `nil`.
    /// - Returns: The event's sequence in the stream (1 for a stream's first event).
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``, ``StreamError/invalidKey(_:role:reason:)``,
    ///   ``StreamError/publishTimedOut(stream:timeout:mayHaveCommitted:)``, `CancellationError` (cancelled while it
    ///   waited for its turn: not published), or what PostgreSQL or the pool reports (`PSQLError`).
    @discardableResult
    public func publish(
        _ payload: ByteBuffer,
        to stream: String,
        key: String? = nil,
        idempotencyKey: String? = nil,
        timeout: Duration? = nil
    ) async throws -> Int64 {
        try StreamSchema.validate(stream: stream)
        let message = Message(payload, key: key, idempotencyKey: idempotencyKey)
        try message.validate()
        return try await enqueue([message], to: stream, timeout: timeout)[0]
    }

    /// Publishes `messages` as the next events of `stream`, in order, in one transaction; returns once they
    /// committed. Thread-safe.
    ///
    /// The batch is never split: all of it commits, or none. It may share its transaction with other publishes to
    /// the stream; one larger than ``Options/maximumBatchCount`` or ``Options/maximumBatchBytes`` commits alone.
    ///
    /// ```swift
    /// let sequences = try await publisher.publish(
    ///     contentsOf: orders.map { StreamPublisher.Message(ByteBuffer(string: $0.line), key: $0.customer) },
    ///     to: "orders"
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - messages: The events, with their keys and idempotency keys.
    ///   - stream: The stream's name.
    ///   - timeout: How long it may take; ``Options/publishTimeout`` when `nil`.
    /// - Returns: Each event's sequence, in the order given (consecutive, unless some were known by their
    ///   idempotency keys). Empty for no messages.
    /// - Throws: As ``publish(_:to:key:idempotencyKey:timeout:)``.
    @discardableResult
    public func publish(
        contentsOf messages: some Sequence<Message>,
        to stream: String,
        timeout: Duration? = nil
    ) async throws -> [Int64] {
        try StreamSchema.validate(stream: stream)
        let messages = Array(messages)
        for message in messages { try message.validate() }
        if messages.isEmpty { return [] }
        return try await enqueue(messages, to: stream, timeout: timeout)
    }

    /// The sequence of `stream`'s last published event now: 0 for a stream nothing was published to. Thread-safe.
    ///
    /// Subscribe `from: .after(lastSequence)` to receive exactly what is published from now on, whatever happens
    /// before the subscriber first reads the stream (`.latest` is settled only then).
    ///
    /// - Parameters:
    ///   - stream: The stream's name.
    ///   - timeout: How long it may take; ``Options/publishTimeout`` when `nil`.
    /// - Returns: The last sequence (retention never lowers it).
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``, ``StreamError/readTimedOut(stream:timeout:)``, or what
    ///   PostgreSQL reports (`PSQLError`).
    public func lastSequence(of stream: String, timeout: Duration? = nil) async throws -> Int64 {
        try StreamSchema.validate(stream: stream)
        let timeout = timeout ?? options.publishTimeout
        return try await _Deadline.run(within: timeout, timedOut: .readTimedOut(stream: stream, timeout: timeout)) {
            leased in
            try await self.withSchema(leased: leased) { connection in
                try await Self.readLastSequence(of: stream, on: connection, schema: self.schema, logger: self.logger)
            }
        }
    }

    /// Runs `body` on a pooled connection, creating the tables first if this publisher has not done so yet.
    ///
    /// `leased` runs as soon as the pool handed over the connection: from then on the task must not be cancelled
    /// (a statement cancelled half-way can leave the connection in a transaction, returned to the pool so); until
    /// then cancelling it only gives up the wait for a connection.
    func withSchema<T: Sendable>(
        leased: @escaping @Sendable () -> Void = {},
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    )
        async throws -> T
    {
        let needsSchema = !schemaCreated.withLock { $0 }
        return try await client.withConnection { connection in
            leased()
            if needsSchema {
                try await self.schema.create(on: connection, logger: self.logger)
                self.schemaCreated.withLock { $0 = true }
            }
            return try await body(connection)
        }
    }

    /// Deletes the events (and idempotency keys) `retention` no longer keeps, in every stream. Thread-safe.
    ///
    /// Run it periodically (a loop timer, a cron job). Subscribers that had not read the deleted events yet receive
    /// ``StreamDelivery/resync(_:)``.
    ///
    /// - Parameter retention: What to keep.
    /// - Returns: How many events it deleted.
    /// - Throws: What PostgreSQL reports.
    @discardableResult
    public func prune(_ retention: StreamRetention) async throws -> Int {
        try await withSchema { connection in
            try await retention.prune(on: connection, schema: self.schema, logger: self.logger)
        }
    }
}
#endif
