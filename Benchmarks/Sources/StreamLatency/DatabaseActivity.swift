import Logging
import PostgresNIO

/// What the database did, from `pg_stat_database`: transactions and rows written. The difference of two readings
/// around a group phase says what handling the backlog cost the server, per event.
///
/// All operations on `DatabaseActivity` are thread-safe (it is a value).
struct DatabaseActivity: Sendable {
    /// Transactions committed or rolled back.
    var transactions: Int64 = 0
    /// Rows inserted.
    var inserted: Int64 = 0
    /// Rows updated.
    var updated: Int64 = 0
    /// Rows deleted.
    var deleted: Int64 = 0

    /// Reads the counters of the current database. A backend reports its counts when it ends (or about once a
    /// second), so read after the members' backends are gone (``waitForOtherBackends(on:)``); this connection's own
    /// are flushed first (`pg_stat_force_next_flush()`), so that its earlier statements (the backlog's `INSERT`) are
    /// not counted late. A reading counts every transaction of this connection up to its own first statement.
    ///
    /// - Parameter connection: A connection of the measuring process; each reading is a transaction of its own, so it
    ///   sees fresh counts.
    /// - Throws: What the statement throws.
    static func read(on connection: PostgresConnection) async throws -> DatabaseActivity {
        let logger = Logger(label: "stream-latency.group")
        _ = try await connection.query("SELECT pg_stat_force_next_flush()", logger: logger)
        let query: PostgresQuery = """
            SELECT xact_commit + xact_rollback, tup_inserted, tup_updated, tup_deleted
            FROM pg_stat_database WHERE datname = current_database()
            """
        var activity = DatabaseActivity()
        for try await (transactions, inserted, updated, deleted) in try await connection.query(query, logger: logger)
            .decode((Int64, Int64, Int64, Int64).self)
        {
            activity = DatabaseActivity(
                transactions: transactions,
                inserted: inserted,
                updated: updated,
                deleted: deleted
            )
        }
        return activity
    }

    /// Waits (up to 10 s) until no client backend but this connection's is connected to the database: the killed
    /// members' backends noticed their connections closed, ended, and reported their counts.
    ///
    /// - Parameter connection: A connection of the measuring process.
    /// - Returns: How many statements (transactions) it ran.
    /// - Throws: What the statement throws.
    @discardableResult
    static func waitForOtherBackends(on connection: PostgresConnection) async throws -> Int {
        let query: PostgresQuery = """
            SELECT count(*) FROM pg_stat_activity
            WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()
            """
        let deadline = ContinuousClock.now + .seconds(10)
        var statements = 0
        while ContinuousClock.now < deadline {
            statements += 1
            var others: Int64 = 0
            for try await count in try await connection.query(query, logger: Logger(label: "stream-latency.group"))
                .decode(Int64.self)
            {
                others = count
            }
            if others == 0 { return statements }
            try await Task.sleep(for: .milliseconds(10))
        }
        return statements
    }

    /// The server processes of the members' sessions: every client backend of the database but this connection's.
    ///
    /// - Parameter connection: A connection of the measuring process.
    /// - Throws: What the statement throws.
    static func otherBackends(on connection: PostgresConnection) async throws -> [Int32] {
        let query: PostgresQuery = """
            SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()
            """
        var pids: [Int32] = []
        for try await pid in try await connection.query(query, logger: Logger(label: "stream-latency.group"))
            .decode(Int32.self)
        {
            pids.append(pid)
        }
        return pids
    }

    /// The counts from `earlier` to this reading, less `ownTransactions` of the measuring process.
    func since(_ earlier: DatabaseActivity, ownTransactions: Int) -> DatabaseActivity {
        DatabaseActivity(
            transactions: transactions - earlier.transactions - Int64(ownTransactions),
            inserted: inserted - earlier.inserted,
            updated: updated - earlier.updated,
            deleted: deleted - earlier.deleted
        )
    }
}
