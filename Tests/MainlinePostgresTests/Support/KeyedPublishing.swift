#if Postgres
import Logging
import MainlinePostgres
import PostgresNIO
import _MainlineTestSupport

/// Publishes `events` (payload and key, as text) to `stream` in commits of `chunk` events each, creating the tables
/// first (so `[]` only creates them). Main actor.
///
/// One statement per chunk (`publish(contentsOf:)`), not one per event: a chunk published event by event inside one
/// transaction took hundreds of round trips through the test process's concurrency pool, which the whole suite shares
/// on two cores; at times no chunk committed for a minute, and member processes waiting on the stream gave up.
@MainActor
func publishKeyed(
    _ events: [(payload: String, key: String?)],
    to stream: String,
    on cluster: PostgresTestCluster,
    chunk: Int = 500
) async throws {
    try await cluster.withConnection { connection in
        try await StreamSchema.default.create(on: connection, logger: Logger(label: "test.publish"))
    }
    guard !events.isEmpty else { return }
    try await withPublisher(cluster) { publisher in
        for start in stride(from: 0, to: events.count, by: chunk) {
            let messages = events[start..<min(start + chunk, events.count)].map { event in
                StreamPublisher.Message(ByteBuffer(string: event.payload), key: event.key)
            }
            try await publisher.publish(contentsOf: messages, to: stream)
        }
    }
}
#endif
