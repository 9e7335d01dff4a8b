#if Postgres
import Logging
import MainlinePostgres
import PostgresNIO
import Testing
import _MainlineTestSupport

/// One row of the events table, as `psql` reads it.
struct StoredEvent: Equatable {
    var sequence: Int64
    var payload: String
    var key: String?
    /// The id of the transaction that wrote it (`xmin`): rows of one commit share it.
    var transaction: String
}

/// The rows of `stream` in the events table, by sequence.
func storedEvents(of stream: String, in cluster: PostgresTestCluster) async throws -> [StoredEvent] {
    let output = try await cluster.psql(
        """
        SELECT sequence, convert_from(payload, 'UTF8'), coalesce(key, '<none>'), xmin
        FROM mainline_stream_events WHERE stream = '\(stream)' ORDER BY sequence
        """
    )
    return output.split(whereSeparator: \.isNewline).map { line in
        let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        return StoredEvent(
            sequence: Int64(fields[0])!,
            payload: fields[1],
            key: fields[2] == "<none>" ? nil : fields[2],
            transaction: fields[3]
        )
    }
}

/// Runs `body` while a transaction of its own holds `stream`'s head: it published `"blocker"` as the stream's next
/// event (creating the tables first) and commits once `body` returned (rolls back if it threw). Every publisher to
/// the stream waits meanwhile; so does one that creates the tables (its `CREATE INDEX IF NOT EXISTS` waits for the
/// table's share lock): let the publisher create them before.
@MainActor
func whileHoldingTheHead<T>(
    of stream: String,
    on cluster: PostgresTestCluster,
    _ body: @MainActor () async throws -> T
) async throws -> T {
    try await cluster.withConnection { connection in
        let logger = Logger(label: "test.blocker")
        try await StreamSchema.default.create(on: connection, logger: logger)
        try await connection.query("BEGIN", logger: logger)
        try await StreamPublisher.publish(ByteBuffer(string: "blocker"), to: stream, on: connection, logger: logger)
        let result: T
        do {
            result = try await body()
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
        try await connection.query("COMMIT", logger: logger)
        return result
    }
}

/// Waits until some session of `cluster` waits for a lock (`pg_stat_activity.wait_event_type = 'Lock'`).
@MainActor
func waitUntilAWriterWaitsForALock(_ cluster: PostgresTestCluster) async throws {
    try await waitUntil("a writer to wait for the stream's lock") {
        let waiting = try await cluster.psql("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
        return (Int(waiting.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0
    }
}

/// Waits until a statement that waits for a lock has run longer than `age` by the server's clock: the deadline of a
/// publish that waits for the head is counted by the server from when it received the statement, which on a busy
/// machine can be well after the publish was called (and answered with its timeout).
@MainActor
func waitUntilTheWaitingStatementIsOlderThan(_ age: Duration, in cluster: PostgresTestCluster) async throws {
    let milliseconds = age.components.seconds * 1_000 + age.components.attoseconds / 1_000_000_000_000_000
    try await waitUntil("the waiting statement older than \(age)") {
        let old = try await cluster.psql(
            """
            SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'
            AND clock_timestamp() - query_start > interval '\(milliseconds) milliseconds'
            """
        )
        return (Int(old.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0
    }
}

/// What a publisher did, for a wait's progress.
func progress(of publisher: StreamPublisher) -> String {
    let counts = publisher.counts
    return "publisher: \(counts.commits) commits, \(counts.published) events, \(counts.failedCommits) failed, "
        + "\(counts.timedOut) timed out, \(counts.queued) queued"
}
#endif
