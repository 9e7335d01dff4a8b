#if Postgres
import Logging
import PostgresNIO

/// The one statement that publishes: any number of events of one stream, one transaction, one hint.
extension StreamPublisher {
    /// What one publishing statement did.
    struct Written {
        /// Each message's sequence, in the order given (a message whose idempotency key was already published has the
        /// sequence it committed as then).
        var sequences: [Int64]
        /// How many events it inserted (the others were known by their idempotency keys).
        var inserted: Int
    }

    /// The text the statement makes PostgreSQL fail with when it runs past its deadline (in a cast's error).
    static let deadlineMarker = "mainline: publish deadline passed"

    /// Publishes `messages` to `stream` on `connection` in one statement: it adds N to the stream's head (whose row
    /// lock, held until commit, serialises the stream's writers), inserts the N new events with consecutive
    /// sequences, remembers their idempotency keys, and queues one hint, `"<last sequence> <stream>"`, sent on
    /// commit. A message whose idempotency key the stream already has (or that an earlier message of the batch has)
    /// is not inserted: it gets that key's sequence.
    ///
    /// - Parameters:
    ///   - remaining: When given, the database fails the statement (so nothing commits) if, after taking the head's
    ///     lock and inserting, more than this has passed since it received the statement.
    /// - Throws: What PostgreSQL reports; a statement past its deadline fails with a `PSQLError` whose message holds
    ///   ``deadlineMarker`` (``isDeadlineError(_:)``).
    static func write(
        _ messages: [Message],
        to stream: String,
        on connection: PostgresConnection,
        schema: StreamSchema,
        remaining: Duration?,
        logger: Logger
    ) async throws -> Written {
        // A key is never empty (validated), so "" stands for none: postgres-nio binds no arrays with NULLs.
        let payloads = messages.map(\.payload)
        let keys = messages.map { $0.key ?? "" }
        let idempotencyKeys = messages.map { $0.idempotencyKey ?? "" }
        let seconds = remaining.map { max(Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18, 0) }
        // 0 turns the deadline check off; a remaining time of 0 is a deadline already passed: use the least above 0.
        let deadline = seconds.map { max($0, 1e-6) } ?? 0
        if messages.count == 1, messages[0].idempotencyKey == nil {
            return try await writeOne(
                messages[0],
                to: stream,
                on: connection,
                schema: schema,
                deadline: deadline,
                logger: logger
            )
        }
        if idempotencyKeys.allSatisfy(\.isEmpty) {
            return try await writeWithoutIdempotencyKeys(
                payloads: payloads,
                keys: keys,
                to: stream,
                on: connection,
                schema: schema,
                deadline: deadline,
                logger: logger
            )
        }
        let events = schema.eventsTable
        let keysTable = schema.publishedKeysTable
        // Every CTE reads the statement's snapshot. `head` waits for the head's row lock, and then adds the number of
        // new events; `assigned` numbers them after it. `written` makes the inserts run before the final rows, so
        // that the deadline is checked (in the first row) after every wait and every write, just before the commit.
        // The deadline check is a cast that fails at run time, taking the whole statement (one transaction) with it.
        let query: PostgresQuery = """
            WITH input AS (
                SELECT payload, nullif(key, '') AS key, nullif(idempotency_key, '') AS idempotency_key, n
                FROM unnest(\(payloads)::bytea[], \(keys)::text[], \(idempotencyKeys)::text[])
                    WITH ORDINALITY AS i(payload, key, idempotency_key, n)
            ), fresh AS (
                SELECT i.*, row_number() OVER (ORDER BY i.n) AS rank FROM input i
                WHERE i.idempotency_key IS NULL OR (
                    NOT EXISTS (
                        SELECT 1 FROM \(unescaped: keysTable) k
                        WHERE k.stream = \(stream) AND k.idempotency_key = i.idempotency_key
                    ) AND NOT EXISTS (
                        SELECT 1 FROM input j WHERE j.idempotency_key = i.idempotency_key AND j.n < i.n
                    )
                )
            ), total AS (
                SELECT count(*) AS count FROM fresh
            ), head AS (
                INSERT INTO \(unescaped: schema.headsTable) AS h (stream, last_sequence)
                SELECT \(stream), count FROM total
                ON CONFLICT (stream) DO UPDATE SET last_sequence = h.last_sequence + excluded.last_sequence
                RETURNING last_sequence
            ), assigned AS (
                SELECT f.n, f.payload, f.key, f.idempotency_key, head.last_sequence - total.count + f.rank AS sequence
                FROM fresh f, head, total
            ), event AS (
                INSERT INTO \(unescaped: events) (stream, sequence, payload, key)
                SELECT \(stream), sequence, payload, key FROM assigned
                RETURNING 1
            ), remembered AS (
                INSERT INTO \(unescaped: keysTable) (stream, idempotency_key, sequence)
                SELECT \(stream), idempotency_key, sequence FROM assigned WHERE idempotency_key IS NOT NULL
                RETURNING 1
            ), written AS (
                SELECT (SELECT count(*) FROM event) + (SELECT count(*) FROM remembered) AS count
            )
            SELECT i.n,
                coalesce(
                    a.sequence,
                    (SELECT b.sequence FROM assigned b WHERE b.idempotency_key = i.idempotency_key),
                    (SELECT k.sequence FROM \(unescaped: keysTable) k
                        WHERE k.stream = \(stream) AND k.idempotency_key = i.idempotency_key)
                ),
                total.count,
                CASE WHEN i.n = 1 AND total.count > 0
                    THEN pg_notify(\(schema.channel), head.last_sequence::text || ' ' || \(stream))::text END,
                (CASE WHEN i.n = 1 AND \(deadline) > 0 AND written.count >= 0
                    AND clock_timestamp() > statement_timestamp() + make_interval(secs => \(deadline))
                    THEN \(deadlineMarker) END)::int
            FROM input i CROSS JOIN head CROSS JOIN total CROSS JOIN written
            LEFT JOIN assigned a ON a.n = i.n
            ORDER BY i.n
            """
        var sequences: [Int64] = []
        sequences.reserveCapacity(messages.count)
        var inserted = 0
        let rows = try await connection.query(query, logger: logger)
            .decode((Int64, Int64, Int64, String?, Int32?).self)
        for try await (_, sequence, count, _, _) in rows {
            sequences.append(sequence)
            inserted = Int(count)
        }
        guard sequences.count == messages.count else {
            // Unreachable: every input row is returned, with a sequence from the insert or from its key.
            preconditionFailure(
                "BUG DETECTED: publishing \(messages.count) events to \(stream.debugDescription) returned "
                    + "\(sequences.count) sequences"
            )
        }
        return Written(sequences: sequences, inserted: inserted)
    }

    /// ``write(_:to:on:schema:remaining:logger:)`` for messages without idempotency keys, the common case: the same
    /// effect from a statement half as costly to the server (no lookups of keys, no numbering window). `EXPLAIN
    /// ANALYZE` of one event on the loaded 2-core machine: 0.31 ms planning + 0.21 ms running, against 0.68 + 0.48
    /// for the general statement (and 0.19 + 0.15 for the one-event statement before group commit).
    private static func writeWithoutIdempotencyKeys(
        payloads: [ByteBuffer],
        keys: [String],
        to stream: String,
        on connection: PostgresConnection,
        schema: StreamSchema,
        deadline: Double,
        logger: Logger
    ) async throws -> Written {
        let count = Int64(payloads.count)
        let query: PostgresQuery = """
            WITH input AS (
                SELECT payload, nullif(key, '') AS key, n
                FROM unnest(\(payloads)::bytea[], \(keys)::text[]) WITH ORDINALITY AS i(payload, key, n)
            ), head AS (
                INSERT INTO \(unescaped: schema.headsTable) AS h (stream, last_sequence) VALUES (\(stream), \(count))
                ON CONFLICT (stream) DO UPDATE SET last_sequence = h.last_sequence + \(count)
                RETURNING last_sequence
            ), event AS (
                INSERT INTO \(unescaped: schema.eventsTable) (stream, sequence, payload, key)
                SELECT \(stream), head.last_sequence - \(count) + i.n, i.payload, i.key FROM head, input i
                RETURNING 1
            )
            SELECT head.last_sequence,
                pg_notify(\(schema.channel), head.last_sequence::text || ' ' || \(stream))::text,
                (CASE WHEN \(deadline) > 0 AND (SELECT count(*) FROM event) >= 0
                    AND clock_timestamp() > statement_timestamp() + make_interval(secs => \(deadline))
                    THEN \(deadlineMarker) END)::int
            FROM head
            """
        guard let last = try await lastSequence(of: query, on: connection, logger: logger) else {
            // Unreachable: the head's upsert returns its row or fails the statement.
            preconditionFailure("BUG DETECTED: publishing to \(stream.debugDescription) returned no head")
        }
        return Written(sequences: Array((last - count + 1)...last), inserted: payloads.count)
    }

    /// ``write(_:to:on:schema:remaining:logger:)`` for one message without an idempotency key: what a publish that
    /// commits alone sends (every publish of a service publishing at a moderate rate). The same effect with no arrays
    /// to unnest and no numbering, so PostgreSQL plans and runs it in about 60 % of the time: `EXPLAIN ANALYZE` on the
    /// quiet 2-core machine (PostgreSQL 15, mean of 180), 0.027 ms planning + 0.025 ms running, against 0.050 + 0.037
    /// for ``writeWithoutIdempotencyKeys(payloads:keys:to:on:schema:deadline:logger:)`` with one event.
    private static func writeOne(
        _ message: Message,
        to stream: String,
        on connection: PostgresConnection,
        schema: StreamSchema,
        deadline: Double,
        logger: Logger
    ) async throws -> Written {
        // The deadline is checked in the row the insert returns: after the wait for the head and after the write.
        let query: PostgresQuery = """
            WITH head AS (
                INSERT INTO \(unescaped: schema.headsTable) AS h (stream, last_sequence) VALUES (\(stream), 1)
                ON CONFLICT (stream) DO UPDATE SET last_sequence = h.last_sequence + 1
                RETURNING last_sequence
            ), event AS (
                INSERT INTO \(unescaped: schema.eventsTable) (stream, sequence, payload, key)
                SELECT \(stream), last_sequence, \(message.payload), \(message.key) FROM head
                RETURNING sequence
            )
            SELECT sequence,
                pg_notify(\(schema.channel), sequence::text || ' ' || \(stream))::text,
                (CASE WHEN \(deadline) > 0
                    AND clock_timestamp() > statement_timestamp() + make_interval(secs => \(deadline))
                    THEN \(deadlineMarker) END)::int
            FROM event
            """
        guard let sequence = try await lastSequence(of: query, on: connection, logger: logger) else {
            // Unreachable: the insert returns its row or fails the statement.
            preconditionFailure("BUG DETECTED: publishing to \(stream.debugDescription) returned no sequence")
        }
        return Written(sequences: [sequence], inserted: 1)
    }

    /// Runs a publishing statement whose rows are a sequence, the hint's `pg_notify` and the deadline check, and
    /// returns the last row's sequence (`nil` if it returned no row).
    private static func lastSequence(
        of query: PostgresQuery,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Int64? {
        var last: Int64?
        for try await (value, _, _) in try await connection.query(query, logger: logger)
            .decode((Int64, String?, Int32?).self)
        {
            last = value
        }
        return last
    }

    /// Whether `error` is the database refusing a statement that ran past its deadline
    /// (``write(_:to:on:schema:remaining:logger:)``).
    static func isDeadlineError(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        return error.serverInfo?[.message]?.contains(deadlineMarker) ?? false
    }

    /// Whether `error` is another transaction having published one of the same idempotency keys while this statement
    /// waited for the head: the statement's snapshot did not see it. Running it again does, and answers with that
    /// key's sequence.
    static func isIdempotencyConflict(_ error: any Error, schema: StreamSchema) -> Bool {
        guard let error = error as? PSQLError, error.serverInfo?[.sqlState] == "23505" else { return false }
        return error.serverInfo?[.constraintName] == "\(schema.publishedKeysTable)_pkey"
    }

    /// The sequence of `stream`'s last published event on `connection`: 0 for a stream nothing was published to.
    static func readLastSequence(
        of stream: String,
        on connection: PostgresConnection,
        schema: StreamSchema,
        logger: Logger
    ) async throws -> Int64 {
        let query: PostgresQuery = """
            SELECT last_sequence FROM \(unescaped: schema.headsTable) WHERE stream = \(stream)
            """
        var last: Int64 = 0
        for try await value in try await connection.query(query, logger: logger).decode(Int64.self) {
            last = value
        }
        return last
    }
}
#endif
