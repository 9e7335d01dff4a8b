#if Postgres
import PostgresNIO

/// The statements of a plain subscription and of stored positions (a group member's are ``GroupStatements`` and
/// ``GroupRoundFunction``).
///
/// All operations on `SubscriberStatements` are thread-safe (its functions only build values).
enum SubscriberStatements {
    /// The stream's head and up to `limit` events after `cursor`, in one statement, so in one snapshot: writers of a
    /// stream commit in sequence order (``StreamPublisher``), so every sequence up to the head is visible here unless it
    /// was deleted, and a missing one is a gap that cannot be filled. Rows: `(head, sequence?, payload?, published_at?,
    /// key?)`, one with `NULL` event columns when nothing follows the cursor; none when the stream has no head.
    static func catchUp(_ stream: String, after cursor: Int64, limit: Int, in schema: StreamSchema) -> PostgresQuery {
        """
        SELECT h.last_sequence, e.sequence, e.payload, e.published_at, e.key
        FROM \(unescaped: schema.headsTable) h
        LEFT JOIN LATERAL (
            SELECT sequence, payload, published_at, key FROM \(unescaped: schema.eventsTable)
            WHERE stream = h.stream AND sequence > \(cursor)
            ORDER BY sequence LIMIT \(Int64(limit))
        ) e ON true
        WHERE h.stream = \(stream)
        """
    }

    /// The stream's head (no row when it has none): where `.latest` starts.
    static func head(of stream: String, in schema: StreamSchema) -> PostgresQuery {
        "SELECT last_sequence FROM \(unescaped: schema.headsTable) WHERE stream = \(stream)"
    }

    /// The sequence before the stream's oldest event (or its head, or 0): where `.oldestAvailable` starts.
    static func beforeOldest(of stream: String, in schema: StreamSchema) -> PostgresQuery {
        """
        SELECT coalesce(
            (SELECT min(sequence) - 1 FROM \(unescaped: schema.eventsTable) WHERE stream = \(stream)),
            (SELECT last_sequence FROM \(unescaped: schema.headsTable) WHERE stream = \(stream)),
            0)
        """
    }

    /// The stream and position stored under `name`, if any.
    static func storedPosition(_ name: String, in schema: StreamSchema) -> PostgresQuery {
        "SELECT stream, last_sequence FROM \(unescaped: schema.positionsTable) WHERE name = \(name)"
    }

    /// Stores `position` of `stream` under `name` unless the name is stored already (another process's row wins).
    static func storePosition(
        _ name: String,
        stream: String,
        position: Int64,
        in schema: StreamSchema
    ) -> PostgresQuery {
        """
        INSERT INTO \(unescaped: schema.positionsTable) (name, stream, last_sequence)
        VALUES (\(name), \(stream), \(position)) ON CONFLICT (name) DO NOTHING
        """
    }

    /// Moves the positions stored under `names` to `positions` (pairwise).
    static func movePositions(_ names: [String], to positions: [Int64], in schema: StreamSchema) -> PostgresQuery {
        """
        UPDATE \(unescaped: schema.positionsTable) p SET last_sequence = v.last
        FROM unnest(\(names)::text[], \(positions)::bigint[]) AS v(name, last)
        WHERE p.name = v.name
        """
    }
}
#endif
