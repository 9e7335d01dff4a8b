#if Postgres
extension StreamPublisher {
    /// How a publisher groups publishes into commits, and how long a publish may take.
    ///
    /// All operations on `Options` are thread-safe (it is a value).
    public struct Options: Sendable, Hashable {
        /// How long a publish may wait for its commit (its turn, a connection from the pool, the statement) before
        /// it fails with ``StreamError/publishTimedOut(stream:timeout:mayHaveCommitted:)``. A publish may give its
        /// own. The database refuses to commit a statement it received once this much time has passed since, so a
        /// publish whose caller was told it timed out does not commit later.
        public var publishTimeout: Duration = .seconds(10)
        /// The most events one commit (one statement, one transaction) carries. A batch from
        /// ``StreamPublisher/publish(contentsOf:to:timeout:)`` is never split: a larger one commits alone.
        public var maximumBatchCount = 1_000
        /// The most payload bytes one commit carries, unless a single publish (or batch) alone is larger.
        public var maximumBatchBytes = 4 * 1_024 * 1_024

        /// The defaults: a 10 s timeout, commits of up to 1,000 events and 4 MiB of payloads.
        public init() {}
    }

    /// What a publisher did so far, and what waits now.
    ///
    /// All operations on `Counts` are thread-safe (it is a value).
    public struct Counts: Sendable, Hashable {
        /// Statements that committed (each is one transaction and sends one hint).
        public var commits = 0
        /// Events those statements committed (a publish retried with a known idempotency key commits none).
        public var published = 0
        /// Statements that failed; every publish in them failed, and none of their events was written.
        public var failedCommits = 0
        /// Publishes answered with ``StreamError/publishTimedOut(stream:timeout:mayHaveCommitted:)``.
        public var timedOut = 0
        /// The most events one statement carried.
        public var largestCommit = 0
        /// Publishes (a `publish(contentsOf:…)` batch counts once) waiting for their turn now, in every stream:
        /// not yet in a statement.
        public var queued = 0
    }
}
#endif
