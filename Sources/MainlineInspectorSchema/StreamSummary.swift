/// A stream subscription or consumer group member of the snapshot document (MainlinePostgres): where it reads, how far
/// behind the stream's head it is, and what it holds.
///
/// `StreamSummary` is a value type; all operations on it are thread-safe.
package struct StreamSummary: Codable, Sendable, Equatable {
    /// `subscription` or `groupMember`.
    @InspectorField package var kind: String? = nil
    /// The stream's name.
    @InspectorField package var stream: String? = nil
    /// A member's group; `null` for a subscription.
    @InspectorField package var group: String? = nil
    /// A member's name in the database; `null` for a subscription.
    @InspectorField package var member: String? = nil
    /// How far it is: a subscription's last event placed (or skipped); a member's group's position (every event at or
    /// before it acknowledged), as its last round read it. `null` until it first read.
    @InspectorField package var position: Int64? = nil
    /// The stream's last sequence, as its last read saw it.
    @InspectorField package var head: Int64? = nil
    /// Events between its position and the head.
    @InspectorField package var lagEvents: Int64? = nil
    /// While it lags: how long ago the last event it delivered was published, in seconds; `0` when it does not lag.
    @InspectorField package var lagSeconds: Double? = nil
    /// Events it delivered.
    @InspectorField package var delivered: Int? = nil
    /// A member's claims: events it holds unacknowledged (claimed, placed or taken); `null` for a subscription.
    @InspectorField package var held: Int? = nil
    /// A member's deliveries of events another member had held before (`deliveryCount` above 1).
    @InspectorField package var redelivered: Int? = nil
    /// Resyncs it delivered.
    @InspectorField package var resyncs: Int? = nil
    /// The last resync's `lastDelivered` and `resumesAfter`; `null` when there was none.
    @InspectorField package var lastResyncFrom: Int64? = nil
    /// See ``lastResyncFrom``.
    @InspectorField package var lastResyncTo: Int64? = nil
    /// Whether its subscriber's connection is up.
    @InspectorField package var connected: Bool? = nil

    /// A stream subscription's or member's summary.
    package init(
        kind: String?,
        stream: String?,
        group: String? = nil,
        member: String? = nil,
        position: Int64?,
        head: Int64?,
        lagEvents: Int64?,
        lagSeconds: Double?,
        delivered: Int?,
        held: Int? = nil,
        redelivered: Int? = nil,
        resyncs: Int?,
        lastResync: (from: Int64, to: Int64)?,
        connected: Bool?
    ) {
        self.kind = kind
        self.stream = stream
        self.group = group
        self.member = member
        self.position = position
        self.head = head
        self.lagEvents = lagEvents
        self.lagSeconds = lagSeconds
        self.delivered = delivered
        self.held = held
        self.redelivered = redelivered
        self.resyncs = resyncs
        self.lastResyncFrom = lastResync?.from
        self.lastResyncTo = lastResync?.to
        self.connected = connected
    }
}
