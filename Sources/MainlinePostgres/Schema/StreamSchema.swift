#if Postgres
import Logging
import PostgresNIO

/// The tables and the notification channel that carry streams, and the statement that creates them.
///
/// All operations on `StreamSchema` are thread-safe (it is a value; ``create(on:logger:)`` runs on the connection
/// it is given).
///
/// Three tables, named from ``tablePrefix``:
/// - `<prefix>_events (stream text, sequence bigint, payload bytea, published_at timestamptz, key text)`, primary key
///   `(stream, sequence)`: the outbox, the source of truth. Retention (``StreamRetention``) deletes from it. `key` is
///   the event's key (``StreamEvent/key``), `NULL` when it has none; ``create(on:logger:)`` adds the column to tables
///   made before it existed.
/// - `<prefix>_heads (stream text primary key, last_sequence bigint)`: the last sequence given out per stream. A
///   publisher increments it in the same statement that inserts the events, so its row lock serialises the writers of
///   one stream, and sequences are gapless and commit in order. It is never pruned, so a sequence is never reused.
/// - `<prefix>_published_keys (stream text, idempotency_key text, sequence bigint, published_at timestamptz)`,
///   primary key `(stream, idempotency_key)`: the idempotency keys publishes gave, and the sequence each committed
///   as, so that a publish retried with the same key commits once. Retention prunes it with the events.
///
/// Three more keep consumer groups and stored positions: `<prefix>_groups`, `<prefix>_claim_batches` (read as one row
/// per event through the view `<prefix>_claims`) and `<prefix>_positions` (see ``StreamGroupSubscription`` and
/// ``StreamStart/stored(_:initially:)``).
///
/// `NOTIFY <channel>` carries only a hint, `"<sequence> <stream>"`, sent when the publishing transaction commits.
///
/// ```swift
/// try await StreamSchema.default.create(on: connection, logger: logger)  // idempotent
/// ```
public struct StreamSchema: Sendable, Hashable {
    /// The longest stream name, in UTF-8 bytes (a hint must stay far below `NOTIFY`'s 8,000 bytes).
    public static let maximumStreamNameLength = 200
    /// The longest event key or idempotency key, in UTF-8 bytes.
    public static let maximumKeyLength = 1_000

    /// The prefix of the tables' names.
    public let tablePrefix: String
    /// The channel the hints are sent on.
    public let channel: String

    /// `mainline_stream_events`, `mainline_stream_heads`, channel `mainline_streams`.
    public static let `default` = StreamSchema(validatedPrefix: "mainline_stream", channel: "mainline_streams")

    /// A schema with tables and a channel of your own (for several independent sets of streams in one database).
    ///
    /// - Parameters:
    ///   - tablePrefix: The tables are `<tablePrefix>_events`, `<tablePrefix>_heads` and
    ///     `<tablePrefix>_published_keys`.
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
    var publishedKeysTable: String { "\(tablePrefix)_published_keys" }
    var groupsTable: String { "\(tablePrefix)_groups" }
    var claimsTable: String { "\(tablePrefix)_claims" }
    var claimBatchesTable: String { "\(tablePrefix)_claim_batches" }
    var positionsTable: String { "\(tablePrefix)_positions" }

    /// Creates the tables and their indexes if they don't exist, and adds the columns that tables made by an older
    /// version lack. Safe to run concurrently from several processes
    /// (it takes a transaction-scoped advisory lock), and cheap when they exist: it then takes no table lock, so it
    /// does not wait for open publishing transactions.
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
            """
            CREATE TABLE IF NOT EXISTS \(publishedKeysTable) (
                stream text NOT NULL,
                idempotency_key text NOT NULL,
                sequence bigint NOT NULL,
                published_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                PRIMARY KEY (stream, idempotency_key)
            )
            """,
            "CREATE INDEX IF NOT EXISTS \(publishedKeysTable)_published_at ON \(publishedKeysTable) (published_at)",
        ]
        try await connection.withTransaction(logger: logger) { transaction in
            for statement in statements + groupAndPositionStatements {
                if try await isDone(statement, on: transaction, logger: logger) { continue }
                try await transaction.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
        }
    }

    /// Whether `statement` (of ``create(on:logger:)``) would change nothing but still lock a table: `ALTER TABLE`
    /// takes the table's ACCESS EXCLUSIVE lock, and `CREATE INDEX` its SHARE lock, even when the column or the index
    /// exists. Either would wait for every open publishing transaction (an outbox transaction can stay open a while)
    /// and stop every reader and writer queued behind it, and this runs on every subscriber's (re)connection. So the
    /// catalog is asked first; only a database that lacks them (new, or made by an older version) runs them.
    private func isDone(_ statement: String, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let query: PostgresQuery
        if statement == "ALTER TABLE \(eventsTable) ADD COLUMN IF NOT EXISTS key text" {
            query = """
                SELECT count(*) FROM pg_attribute
                WHERE attrelid = to_regclass(\(eventsTable)) AND attname = 'key' AND NOT attisdropped
                """
        } else if statement == moveClaimRowsIntoBatches || statement.hasPrefix("CREATE OR REPLACE VIEW ") {
            // Done once the claims are a view: replacing a view takes its ACCESS EXCLUSIVE lock.
            query = "SELECT count(*) FROM pg_class WHERE oid = to_regclass(\(claimsTable)) AND relkind = 'v'"
        } else if statement.hasPrefix("CREATE OR REPLACE FUNCTION ") {
            // Replacing a function other sessions run waits for nothing, but the name carries its version, so one
            // that exists is this one.
            query = "SELECT count(*) FROM pg_proc WHERE oid = to_regproc(\(GroupRoundFunction.name(in: self)))"
        } else if statement.hasPrefix(Self.createIndex) {
            let name = String(statement.dropFirst(Self.createIndex.count).prefix { $0 != " " })
            query = "SELECT count(*) FROM pg_class WHERE oid = to_regclass(\(name))"
        } else {
            return false  // `CREATE TABLE IF NOT EXISTS` and the advisory lock take no table's lock.
        }
        var count: Int64 = 0
        for try await value in try await connection.query(query, logger: logger).decode(Int64.self) { count = value }
        return count > 0
    }

    private static let createIndex = "CREATE INDEX IF NOT EXISTS "

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

    /// Checks that `key` can be an event key or an idempotency key: not empty, at most ``maximumKeyLength`` UTF-8
    /// bytes, no control character. Thread-safe.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - role: What it is, for the error: `"key"` or `"idempotency key"`.
    /// - Throws: ``StreamError/invalidKey(_:role:reason:)`` naming the rule it breaks.
    static func validate(key: String, role: String) throws(StreamError) {
        if key.isEmpty { throw .invalidKey(key, role: role, reason: "it is empty") }
        if key.utf8.count > maximumKeyLength {
            throw .invalidKey(key, role: role, reason: "it is longer than \(maximumKeyLength) bytes")
        }
        if key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .invalidKey(key, role: role, reason: "it holds a control character")
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
