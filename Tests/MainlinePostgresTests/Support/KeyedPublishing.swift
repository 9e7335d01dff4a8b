#if Postgres
import Logging
import MainlinePostgres
import PostgresNIO
import _MainlineTestSupport

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
                try await StreamPublisher.publish(
                    ByteBuffer(string: payload),
                    to: stream,
                    key: key,
                    on: connection,
                    logger: Logger(label: "test.publish")
                )
            }
            try await connection.query("COMMIT", logger: Logger(label: "test.publish"))
            done += slice.count
            await published(done)
        }
    }
}
#endif
