#if Postgres
/// The tables of consumer groups and stored positions, created by ``StreamSchema/create(on:logger:)`` with the others.
///
/// - `<prefix>_groups (stream, grp, handed, acknowledged)`, primary key `(stream, grp)`: one row per group of a stream.
///   `handed` is how far the stream has been handed into the group (every event up to it has a claim row or was
///   acknowledged); `acknowledged` is the group's position: every event at or before it was acknowledged by a member
///   (or was gone). Its row lock serialises the claims of a group's members.
/// - `<prefix>_claims (stream, grp, sequence, key, member, lease_until, deliveries)`, primary key
///   `(stream, grp, sequence)`: one row per event handed into a group and not yet acknowledged. `member` is `NULL`
///   while nobody holds it; a held row whose `lease_until` passed is free again. `deliveries` counts the members it
///   was handed to. An acknowledged row is deleted.
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
                PRIMARY KEY (stream, grp, sequence)
            )
            """,
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
        ]
    }
}
#endif
