import Logging
import MainlinePostgres
import PostgresNIO

/// The backlog of one group phase in the database: written before the members start, and checked for being drained.
///
/// All operations on `GroupBacklog` are thread-safe (it is a value).
struct GroupBacklog: Sendable {
    /// The peer whose backlog it is.
    var peer: GroupPeer
    /// The stream (mainline) or the jobs table (skip-locked).
    var target: String
    /// Events in it, numbered 0 to `events - 1` (the payload is the number, as text).
    var events: Int

    /// The consumer group's name.
    static let group = "workers"

    /// Writes the backlog: mainline publishes the events with `StreamPublisher.publish(contentsOf:)`, 1,000 per call;
    /// skip-locked creates `<target> (id bigserial PRIMARY KEY, payload bytea NOT NULL)` and inserts them. Then
    /// `VACUUM ANALYZE`, so that both peers start from fresh statistics and no autovacuum of the new rows.
    ///
    /// - Parameters:
    ///   - client: A pool (running), for the publisher.
    ///   - connection: A connection for the queue's statements.
    /// - Throws: What publishing or a statement throws.
    func write(through client: PostgresClient, on connection: PostgresConnection) async throws {
        let logger = Logger(label: "stream-latency.group")
        switch peer {
        case .mainline:
            let publisher = StreamPublisher(client: client)
            for start in stride(from: 0, to: events, by: 1_000) {
                let messages = (start..<min(start + 1_000, events)).map {
                    StreamPublisher.Message(ByteBuffer(string: "\($0)"))
                }
                try await publisher.publish(contentsOf: messages, to: target)
            }
        case .skipLocked:
            _ = try await connection.query(
                "CREATE TABLE \(unescaped: target) (id bigserial PRIMARY KEY, payload bytea NOT NULL)",
                logger: logger
            )
            _ = try await connection.query(
                """
                INSERT INTO \(unescaped: target) (payload)
                SELECT convert_to(i::text, 'UTF8') FROM generate_series(0, \(events - 1)) i
                """,
                logger: logger
            )
        }
        _ = try await connection.query("VACUUM ANALYZE", logger: logger)
    }

    /// Whether every event was acknowledged: the group handed out the whole stream and holds no claim (mainline), or
    /// the table is empty (skip-locked).
    ///
    /// - Parameter connection: A connection of the measuring process.
    /// - Throws: What the statement throws.
    func isDrained(on connection: PostgresConnection) async throws -> Bool {
        let prefix = StreamSchema.default.tablePrefix
        let query: PostgresQuery =
            switch peer {
            case .mainline:
                """
                SELECT g.handed >= \(Int64(events)) AND NOT EXISTS (
                    SELECT 1 FROM \(unescaped: prefix)_claims c WHERE c.stream = g.stream AND c.grp = g.grp)
                FROM \(unescaped: prefix)_groups g WHERE g.stream = \(target) AND g.grp = \(Self.group)
                """
            case .skipLocked: "SELECT NOT EXISTS (SELECT 1 FROM \(unescaped: target))"
            }
        var drained = false
        for try await value in try await connection.query(query, logger: Logger(label: "stream-latency.group"))
            .decode(Bool.self)
        {
            drained = value
        }
        return drained
    }
}
