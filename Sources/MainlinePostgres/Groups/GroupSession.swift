#if Postgres
import Logging
import PostgresNIO

/// A subscriber connection's liveness, as its group members' claims name it: a session-level advisory lock
/// `(namespace, key)` the subscriber takes on its connection when it connects. PostgreSQL releases it the moment the
/// session ends (the process died, the connection closed or was cut), and the other members' rounds read the locks
/// that are held (`pg_locks`), so they take a dead member's claims at once, with no heartbeat table.
///
/// All operations on `GroupSession` are thread-safe (it is a value; ``acquire(on:schema:logger:)`` runs on the
/// connection it is given).
///
/// A connection pooler in transaction mode (PgBouncer's `pool_mode = transaction`) does not keep a session per client:
/// group members need a direct connection, or a pooler in session mode.
struct GroupSession: Sendable, Hashable {
    /// The advisory locks' first key, the same for every subscriber of a schema: derived from its table prefix.
    let namespace: Int32
    /// This connection's own key, unique among the schema's live sessions.
    let key: Int32

    /// The namespace of `schema`'s sessions: FNV-1a of the claims table's name, kept positive (so `pg_locks.classid`,
    /// an `oid`, reads back as the same number).
    static func namespace(of schema: StreamSchema) -> Int32 {
        var hash: UInt32 = 2_166_136_261
        for byte in schema.claimsTable.utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        return Int32(bitPattern: hash & 0x7fff_ffff)
    }

    /// Takes a session lock with a random key no other live session of `schema` holds, on `connection`.
    ///
    /// - Throws: What PostgreSQL reports.
    static func acquire(
        on connection: PostgresConnection,
        schema: StreamSchema,
        logger: Logger
    ) async throws
        -> GroupSession
    {
        let namespace = namespace(of: schema)
        while true {
            let key = Int32.random(in: 1...Int32.max)
            let query = GroupStatements.lockSession(namespace: namespace, key: key)
            for try await locked in try await connection.queryUnlessClosed(query, logger: logger).decode(Bool.self)
            where locked {
                return GroupSession(namespace: namespace, key: key)
            }
            // Another live session holds this key: draw again.
        }
    }
}
#endif
