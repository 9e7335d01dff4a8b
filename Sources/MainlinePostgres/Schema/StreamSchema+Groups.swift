#if Postgres
/// The tables of consumer groups and stored positions, created by ``StreamSchema/create(on:logger:)`` with the others.
///
/// - `<prefix>_groups (stream, grp, handed, acknowledged)`, primary key `(stream, grp)`: one row per group of a stream.
///   `handed` is how far the stream has been handed into the group (every event up to it is in a claim batch or was
///   acknowledged); `acknowledged` is the group's position: every event at or before it was acknowledged by a member
///   (or was gone). Its row lock serialises the claims of a group's members.
/// - `<prefix>_claim_batches (stream, grp, id, member, session, lease_until, sequences, keys, deliveries, first)`,
///   primary key `(stream, grp, id)`: the events handed into a group and not yet acknowledged, a batch per row (the
///   arrays `sequences`, `keys` and `deliveries` hold one element per event, `first` is the lowest sequence). `member`
///   is `NULL` while nobody holds the batch; a held batch is free again once its `lease_until` passed or once the
///   database session `session` names ended (a member's subscriber holds the session advisory lock
///   `(namespace, session)` on its connection: ``GroupSession``). `deliveries` counts the members each event was handed
///   to. Acknowledged events leave their batch; an empty batch is deleted.
/// - The view `<prefix>_claims (stream, grp, sequence, key, member, lease_until, deliveries, session)`: the same, one
///   row per event, for people and tools that read the claims (a table of that name, made by an older version, has its
///   rows moved into batches and is dropped).
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
            CREATE TABLE IF NOT EXISTS \(claimBatchesTable) (
                stream text NOT NULL,
                grp text NOT NULL,
                id bigint GENERATED ALWAYS AS IDENTITY,
                member text,
                session bigint,
                lease_until timestamptz,
                sequences bigint[] NOT NULL,
                keys text[] NOT NULL,
                deliveries integer[] NOT NULL,
                first bigint NOT NULL,
                PRIMARY KEY (stream, grp, id)
            )
            """,
            moveClaimRowsIntoBatches,
            """
            CREATE OR REPLACE VIEW \(claimsTable) AS
            SELECT b.stream, b.grp, u.sequence, u.key, b.member, b.lease_until, u.deliveries, b.session
            FROM \(claimBatchesTable) b, unnest(b.sequences, b.keys, b.deliveries) AS u(sequence, key, deliveries)
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

    /// Moves the rows of a claims table made by an older version (one row per event) into batches of one event each,
    /// keeping who holds them and their leases, and drops the table (its name becomes a view).
    var moveClaimRowsIntoBatches: String {
        """
        DO $move$ BEGIN
            IF EXISTS (SELECT 1 FROM pg_class WHERE oid = to_regclass('\(claimsTable)') AND relkind = 'r') THEN
                INSERT INTO \(claimBatchesTable)
                    (stream, grp, member, lease_until, sequences, keys, deliveries, first)
                SELECT stream, grp, member, lease_until, ARRAY[sequence], ARRAY[key], ARRAY[deliveries], sequence
                FROM \(claimsTable);
                DROP TABLE \(claimsTable);
            END IF;
        END $move$
        """
    }
}
#endif
