#if Postgres
extension StreamSubscriber {
    /// How a subscriber watches its connection, reconnects and reads.
    ///
    /// All operations on `Options` are thread-safe (it is a value).
    public struct Options: Sendable, Hashable {
        /// How often the listening connection is checked with `SELECT 1`. A connection that died without closing
        /// (a cut network, a frozen server) is noticed within `healthCheckInterval + healthCheckTimeout`.
        public var healthCheckInterval: Duration = .seconds(5)
        /// How long a health check may take before the connection is given up and replaced.
        public var healthCheckTimeout: Duration = .seconds(5)
        /// The wait before the first reconnect attempt; it doubles after each failed one.
        public var initialReconnectDelay: Duration = .milliseconds(100)
        /// The longest wait between reconnect attempts.
        public var maximumReconnectDelay: Duration = .seconds(10)
        /// How often every subscription reads its stream even without a hint (hints cannot be lost while connected;
        /// this bounds the delay should one be anyway).
        public var pollInterval: Duration = .seconds(30)
        /// How long a subscription whose mailbox refused an event waits before offering it again.
        public var retryInterval: Duration = .milliseconds(20)
        /// The most events read in one query (each is held in memory until placed).
        public var batchSize = 100
        /// The `application_name` of the listening connection, as `pg_stat_activity` shows it.
        public var applicationName = "mainline-stream-subscriber"
        /// How long a consumer group member holds an event it has not acknowledged without renewing: a member that is
        /// alive but stuck (its connection up, its subscriber not running rounds) loses its events to the other
        /// members this long after its last renewal. (A member whose process dies or whose connection ends loses them
        /// at once: see ``groupTakeoverCheckInterval``.) Renewals run every third of it.
        public var groupLease: Duration = .seconds(30)
        /// The most events a group member holds unacknowledged; it claims more, in a batch, once half are acknowledged.
        public var groupWindow = 100
        /// How soon a group member with room looks again for claims to take over while other members hold some: a
        /// member whose process dies or whose connection ends is noticed by the others at their next round, and a
        /// member that has nothing else to do runs one this often (only while others hold claims).
        public var groupTakeoverCheckInterval: Duration = .milliseconds(500)
        /// How often a subscription started ``StreamStart/stored(_:initially:)`` writes its position when it moved
        /// (and once more when the subscriber stops).
        public var positionFlushInterval: Duration = .seconds(1)

        /// The defaults: health check every 5 s (5 s timeout), reconnect after 0.1 s doubling up to 10 s, poll every
        /// 30 s, retry a refused event after 20 ms, batches of 100; group leases of 30 s, windows of 100 events and
        /// takeover checks every 0.5 s; stored positions written every second.
        public init() {}
    }

    /// What a subscriber saw of its connection and of the hints it received.
    ///
    /// All operations on `Counts` are thread-safe (it is a value).
    public struct Counts: Sendable, Hashable {
        /// Connections that listened (the first one included).
        public var connections = 0
        /// Connections that ended or failed, and so were replaced (or retried).
        public var connectionFailures = 0
        /// Hints that were not `"<sequence> <stream>"`: each logged and skipped.
        public var malformedHints = 0
        /// Hints naming a stream no subscription of this subscriber reads: skipped (logged at debug level). Normal
        /// when other processes use other streams of the same schema.
        public var unknownStreamHints = 0
        /// Whether the listening connection is up now.
        public var isConnected = false
    }
}
#endif
