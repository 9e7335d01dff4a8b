#if Postgres
import Logging
import PostgresNIO

/// How long, and how many, events each stream keeps.
///
/// All operations on `StreamRetention` are thread-safe (it is a value).
///
/// An event is deleted when it is older than ``maximumAge`` or when its stream has more than ``maximumCount``
/// newer events. Streams' heads are kept, so sequences continue where they were and are never reused. A subscriber
/// that had not read a deleted event receives ``StreamDelivery/resync(_:)`` once for the gap.
///
/// The idempotency keys publishes gave are pruned by the same rule (a key older than ``maximumAge``, or of an event
/// more than ``maximumCount`` behind its stream's head): a publish retried with a key pruned already commits again.
/// Retry within the retention window.
///
/// ```swift
/// try await publisher.prune(StreamRetention(maximumAge: .seconds(86_400), maximumCount: 100_000))
/// ```
public struct StreamRetention: Sendable, Hashable {
    /// Events older than this are deleted; `nil` keeps events of any age.
    public var maximumAge: Duration?
    /// Each stream keeps at most this many of its newest events; `nil` keeps any number.
    public var maximumCount: Int?

    /// Creates a retention rule.
    ///
    /// - Parameters:
    ///   - maximumAge: Events older than this are deleted; `nil` keeps events of any age.
    ///   - maximumCount: Each stream keeps at most this many of its newest events (at least 0); `nil` keeps any
    ///     number.
    public init(maximumAge: Duration? = nil, maximumCount: Int? = nil) {
        self.maximumAge = maximumAge
        self.maximumCount = maximumCount.map { max($0, 0) }
    }

    /// Deletes what this rule no longer keeps on `connection`: events and idempotency keys.
    ///
    /// - Parameters:
    ///   - connection: The connection.
    ///   - schema: The tables.
    ///   - logger: The logger for the statements.
    /// - Returns: How many events were deleted (the idempotency keys deleted are not counted).
    /// - Throws: What PostgreSQL reports.
    @discardableResult
    public func prune(
        on connection: PostgresConnection,
        schema: StreamSchema = .default,
        logger: Logger
    ) async throws
        -> Int
    {
        var deleted = 0
        if let maximumCount {
            let query: PostgresQuery = """
                WITH gone AS (
                    DELETE FROM \(unescaped: schema.eventsTable) e USING \(unescaped: schema.headsTable) h
                    WHERE e.stream = h.stream AND e.sequence <= h.last_sequence - \(Int64(maximumCount))
                    RETURNING 1
                ) SELECT count(*) FROM gone
                """
            deleted += try await Self.count(query, on: connection, logger: logger)
            let keys: PostgresQuery = """
                DELETE FROM \(unescaped: schema.publishedKeysTable) k USING \(unescaped: schema.headsTable) h
                WHERE k.stream = h.stream AND k.sequence <= h.last_sequence - \(Int64(maximumCount))
                """
            try await connection.query(keys, logger: logger)
        }
        if let maximumAge {
            let (seconds, attoseconds) = maximumAge.components
            let ageInSeconds = Double(seconds) + Double(attoseconds) / 1e18
            let query: PostgresQuery = """
                WITH gone AS (
                    DELETE FROM \(unescaped: schema.eventsTable)
                    WHERE published_at < clock_timestamp() - make_interval(secs => \(ageInSeconds))
                    RETURNING 1
                ) SELECT count(*) FROM gone
                """
            deleted += try await Self.count(query, on: connection, logger: logger)
            let keys: PostgresQuery = """
                DELETE FROM \(unescaped: schema.publishedKeysTable)
                WHERE published_at < clock_timestamp() - make_interval(secs => \(ageInSeconds))
                """
            try await connection.query(keys, logger: logger)
        }
        return deleted
    }

    private static func count(
        _ query: PostgresQuery,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws
        -> Int
    {
        var total = 0
        for try await (count) in try await connection.query(query, logger: logger).decode(Int64.self) {
            total += Int(count)
        }
        return total
    }
}
#endif
