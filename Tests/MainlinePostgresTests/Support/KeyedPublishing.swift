#if Postgres
import Logging
import MainlinePostgres
import PostgresNIO
import _MainlineTestSupport

// Until the publisher half of issue 28 (`publish(_:to:key:)`) is merged, the group tests publish keyed events with the
// statement `StreamPublisher.publish(_:to:on:schema:logger:metricsFactory:)` runs, the key added. Replace with the
// public API at the merge.

/// Publishes `payload` with `key` as the next event of `stream` on `connection`: `StreamPublisher`'s statement with the
/// `key` column.
@discardableResult
func publishKeyed(
    _ payload: ByteBuffer,
    to stream: String,
    key: String?,
    on connection: PostgresConnection,
    schema: StreamSchema = .default
) async throws -> Int64 {
    let events = "\(schema.tablePrefix)_events"
    let heads = "\(schema.tablePrefix)_heads"
    let query: PostgresQuery = """
        WITH head AS (
            INSERT INTO \(unescaped: heads) AS h (stream, last_sequence) VALUES (\(stream), 1)
            ON CONFLICT (stream) DO UPDATE SET last_sequence = h.last_sequence + 1
            RETURNING last_sequence
        ), event AS (
            INSERT INTO \(unescaped: events) (stream, sequence, payload, key)
            SELECT \(stream), last_sequence, \(payload), \(key) FROM head
            RETURNING sequence
        )
        SELECT sequence, pg_notify(\(schema.channel), sequence::text || ' ' || \(stream))::text FROM event
        """
    var sequence: Int64 = 0
    for try await (value, _) in try await connection.query(query, logger: Logger(label: "test.publish"))
        .decode((Int64, String?).self)
    {
        sequence = value
    }
    return sequence
}

/// Publishes `events` (payload and key, as text) to `stream` in transactions of `chunk` events each, on a connection of
/// its own, creating the tables first; calls `published` with the count after each transaction. Fast enough for
/// thousands of events: one commit per chunk.
func publishKeyed(
    _ events: [(payload: String, key: String?)],
    to stream: String,
    on cluster: PostgresTestCluster,
    chunk: Int = 500,
    published: (Int) async -> Void = { _ in }
) async throws {
    try await cluster.withConnection { connection in
        try await StreamSchema.default.create(on: connection, logger: Logger(label: "test.publish"))
        var done = 0
        while done < events.count {
            let slice = events[done..<min(done + chunk, events.count)]
            try await connection.query("BEGIN", logger: Logger(label: "test.publish"))
            for (payload, key) in slice {
                try await publishKeyed(ByteBuffer(string: payload), to: stream, key: key, on: connection)
            }
            try await connection.query("COMMIT", logger: Logger(label: "test.publish"))
            done += slice.count
            await published(done)
        }
    }
}
#endif
