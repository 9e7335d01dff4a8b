#if Postgres
/// The tables of consumer groups and stored positions, created by ``StreamSchema/create(on:logger:)`` with the others.
///
/// - `<prefix>_groups (stream, grp, handed, acknowledged)`, primary key `(stream, grp)`: one row per group of a stream.
///   `handed` is how far the stream has been handed into the group (every event up to it has a claim row or was
///   acknowledged); `acknowledged` is the group's position: every event at or before it was acknowledged by a member
///   (or was gone). Its row lock serialises the claims of a group's members.
/// - `<prefix>_claims (stream, grp, sequence, key, member, lease_until, deliveries, session)`, primary key
///   `(stream, grp, sequence)`: one row per event handed into a group and not yet acknowledged. `member` is `NULL`
///   while nobody holds it; a held row is free again once its `lease_until` passed or once the database session
///   `session` names ended (a member's subscriber holds the session advisory lock `(namespace, session)` on its
///   connection: ``GroupSession``). `deliveries` counts the members it was handed to. An acknowledged row is deleted.
/// - The function `<prefix>_group_round_v1` (``GroupRoundFunction``): one member's round in one call.
/// - `<prefix>_positions (name primary key, stream, last_sequence)`: the positions of subscriptions started
///   ``StreamStart/stored(_:initially:)``.
extension StreamSchema {
    var groupAndPositionStatements: [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS \(groupsTable) (
                stream text NOT NULL,
                grp text NOT NULL,
                handed bigint NOT NULL,
                acknowledged bigint NOT NULL,
                PRIMARY KEY (stream, grp)
            )
            """,
            """
            CREATE TABLE IF NOT EXISTS \(claimsTable) (
                stream text NOT NULL,
                grp text NOT NULL,
                sequence bigint NOT NULL,
                key text,
                member text,
                lease_until timestamptz,
                deliveries integer NOT NULL DEFAULT 0,
                session bigint,
                PRIMARY KEY (stream, grp, sequence)
            )
            """,
            Self.addSessionColumn(to: claimsTable),
            """
            CREATE INDEX IF NOT EXISTS \(claimsTable)_key ON \(claimsTable) (stream, grp, key, sequence)
                WHERE key IS NOT NULL
            """,
            """
            CREATE TABLE IF NOT EXISTS \(positionsTable) (
                name text PRIMARY KEY,
                stream text NOT NULL,
                last_sequence bigint NOT NULL
            )
            """,
            GroupRoundFunction.definition(in: self),
        ]
    }

    /// The statement that adds `session` to a claims table made before it existed.
    static func addSessionColumn(to claimsTable: String) -> String {
        "ALTER TABLE \(claimsTable) ADD COLUMN IF NOT EXISTS session bigint"
    }
}
#endif
