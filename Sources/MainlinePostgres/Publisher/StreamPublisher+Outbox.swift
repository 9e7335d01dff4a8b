#if Postgres
import CoreMetrics
import Logging
import PostgresNIO

/// The transactional outbox: publishing inside the caller's own transaction.
extension StreamPublisher {
    /// Publishes `payload` on `connection`, inside whatever transaction it has open: the event commits (and its
    /// hint is sent) with that transaction, or not at all. Thread-safe.
    ///
    /// The transactional outbox: publish in the transaction that makes the change the event announces. This does not
    /// group commits, has no deadline (the transaction is yours), and does not create the tables: run
    /// ``StreamSchema/create(on:logger:)`` once beforehand.
    ///
    /// ```swift
    /// try await connection.withTransaction(logger: logger) { transaction in
    ///     try await transaction.query("UPDATE orders SET state = 'paid' WHERE id = \(id)", logger: logger)
    ///     let event = ByteBuffer(string: "paid \(id)")
    ///     try await StreamPublisher.publish(event, to: "orders", on: transaction, logger: logger)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - payload: The event's bytes.
    ///   - stream: The stream's name.
    ///   - key: The event's key (``StreamEvent/key``), or `nil`.
    ///   - connection: The connection (in a transaction, or not).
    ///   - schema: The tables and channel.
    ///   - logger: The logger for the statement.
    ///   - metricsFactory: Where `mainline_stream_published` goes (counted when the statement ran, even if the
    ///     transaction later rolls back).
    /// - Returns: The event's sequence in the stream.
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``, ``StreamError/invalidKey(_:role:reason:)``, or what
    ///   PostgreSQL reports.
    /// - Important: The transaction holds the stream's head until it ends; other publishers to the stream wait for it.
    @discardableResult
    public static func publish(
        _ payload: ByteBuffer,
        to stream: String,
        key: String? = nil,
        on connection: PostgresConnection,
        schema: StreamSchema = .default,
        logger: Logger,
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) async throws -> Int64 {
        try StreamSchema.validate(stream: stream)
        let message = Message(payload, key: key)
        try message.validate()
        let written = try await write(
            [message],
            to: stream,
            on: connection,
            schema: schema,
            remaining: nil,
            logger: logger
        )
        Counter(label: "mainline_stream_published", dimensions: [("stream", stream)], factory: metricsFactory)
            .increment()
        return written.sequences[0]
    }
}
#endif
