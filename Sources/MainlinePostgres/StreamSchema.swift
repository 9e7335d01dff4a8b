#if Postgres
import Logging
import PostgresNIO

/// The tables and the notification channel that carry streams, and the statement that creates them.
///
/// All operations on `StreamSchema` are thread-safe (it is a value; ``create(on:logger:)`` runs on the connection
/// it is given).
///
/// Two tables, named from ``tablePrefix``, carry the streams:
/// - `<prefix>_events (stream text, sequence bigint, payload bytea, published_at timestamptz, key text)`, primary key
///   `(stream, sequence)`: the outbox, the source of truth. Retention (``StreamRetention``) deletes from it. `key`
///   (nullable) orders a stream's events within a consumer group.
/// - `<prefix>_heads (stream text primary key, last_sequence bigint)`: the last sequence given out per stream. A
///   publisher increments it in the same statement that inserts the event, so its row lock serialises the writers of
///   one stream, and sequences are gapless and commit in order. It is never pruned, so a sequence is never reused.
///
/// Three more keep consumer groups and stored positions: `<prefix>_groups`, `<prefix>_claims` and
/// `<prefix>_positions` (see ``StreamGroupSubscription`` and ``StreamStart/stored(_:initially:)``).
///
/// `NOTIFY <channel>` carries only a hint, `"<sequence> <stream>"`, sent when the publishing transaction commits.
///
/// ```swift
/// try await StreamSchema.default.create(on: connection, logger: logger)  // idempotent
/// ```
public struct StreamSchema: Sendable, Hashable {
    /// The longest stream name, in UTF-8 bytes (a hint must stay far below `NOTIFY`'s 8,000 bytes).
    public static let maximumStreamNameLength = 200

    /// The prefix of both tables' names.
    public let tablePrefix: String
    /// The channel the hints are sent on.
    public let channel: String

    /// `mainline_stream_events`, `mainline_stream_heads`, channel `mainline_streams`.
    public static let `default` = StreamSchema(validatedPrefix: "mainline_stream", channel: "mainline_streams")

    /// A schema with tables and a channel of your own (for several independent sets of streams in one database).
    ///
    /// - Parameters:
    ///   - tablePrefix: The tables are `<tablePrefix>_events` and `<tablePrefix>_heads`.
    ///   - channel: The `LISTEN`/`NOTIFY` channel.
    /// - Throws: ``StreamError/invalidIdentifier(_:role:)`` unless both are lowercase SQL identifiers
    ///   (`[a-z_][a-z0-9_]*`) of at most 40 bytes.
    public init(tablePrefix: String, channel: String) throws(StreamError) {
        guard Self.isPlainIdentifier(tablePrefix) else {
            throw .invalidIdentifier(tablePrefix, role: "table prefix")
        }
        guard Self.isPlainIdentifier(channel) else { throw .invalidIdentifier(channel, role: "channel") }
        self.init(validatedPrefix: tablePrefix, channel: channel)
    }

    private init(validatedPrefix: String, channel: String) {
        self.tablePrefix = validatedPrefix
        self.channel = channel
    }

    var eventsTable: String { "\(tablePrefix)_events" }
    var headsTable: String { "\(tablePrefix)_heads" }
    var groupsTable: String { "\(tablePrefix)_groups" }
    var claimsTable: String { "\(tablePrefix)_claims" }
    var positionsTable: String { "\(tablePrefix)_positions" }

    /// Creates the tables and their index if they don't exist. Safe to run concurrently from several processes
    /// (it takes a transaction-scoped advisory lock), and cheap when they exist.
    ///
    /// ``StreamSubscriber`` runs it on every connection and ``StreamPublisher`` before its first publish; call it
    /// yourself to create the tables ahead of time (a migration).
    ///
    /// - Parameters:
    ///   - connection: A connection that may create tables.
    ///   - logger: The logger for the statements.
    /// - Throws: What PostgreSQL reports (`PSQLError`).
    public func create(on connection: PostgresConnection, logger: Logger) async throws {
        // The identifiers were validated in `init`, so writing them into the text is safe.
        let statements = [
            "SELECT pg_advisory_xact_lock(hashtext('\(eventsTable)'))",
            """
            CREATE TABLE IF NOT EXISTS \(headsTable) (
                stream text PRIMARY KEY,
                last_sequence bigint NOT NULL
            )
            """,
            """
            CREATE TABLE IF NOT EXISTS \(eventsTable) (
                stream text NOT NULL,
                sequence bigint NOT NULL,
                payload bytea NOT NULL,
                published_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                PRIMARY KEY (stream, sequence)
            )
            """,
            "ALTER TABLE \(eventsTable) ADD COLUMN IF NOT EXISTS key text",
            "CREATE INDEX IF NOT EXISTS \(eventsTable)_published_at ON \(eventsTable) (published_at)",
        ]
        try await connection.withTransaction(logger: logger) { transaction in
            for statement in statements + groupAndPositionStatements {
                try await transaction.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
        }
    }

    /// Checks that `stream` can name a stream: not empty, at most ``maximumStreamNameLength`` UTF-8 bytes, no control
    /// character. Publishing and subscribing check it too; call it to refuse a name from outside early (a topic a
    /// client sent, say). Thread-safe.
    ///
    /// - Parameter stream: The name.
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)`` naming the rule it breaks.
    public static func validate(stream: String) throws(StreamError) {
        if stream.isEmpty { throw .invalidStreamName(stream, reason: "it is empty") }
        if stream.utf8.count > maximumStreamNameLength {
            throw .invalidStreamName(stream, reason: "it is longer than \(maximumStreamNameLength) bytes")
        }
        if stream.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .invalidStreamName(stream, reason: "it holds a control character")
        }
    }

    private static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 40 else { return false }
        let isLetter = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || byte == UInt8(ascii: "_")
        }
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        return isLetter(first) && name.utf8.allSatisfy { isLetter($0) || isDigit($0) }
    }
}
#endif
