#if Postgres
import Foundation
import MainlineEvents
import PostgresNIO

/// Consumer groups: the members of a group, in any number of processes, share a stream (see
/// ``StreamGroupSubscription``).
extension StreamSubscriber {
    /// Joins `group` of `stream`: each event of the stream is decoded with `decode` and handed to `place` here or to
    /// another member of the group, one member at a time, until a member acknowledges it.
    ///
    /// The other overloads place into a Mainline mailbox; use this one for any other destination. `place` runs on the
    /// subscriber's reader task (not on the loop), one call at a time, and must not block; an event it accepted waits
    /// for ``StreamGroupSubscription/acknowledge(_:)``.
    ///
    /// ```swift
    /// let jobs = BoundedMailbox<StreamDelivery<Job>>(capacity: 100, overflow: .reject)
    /// let member = try subscriber.subscribe(to: "jobs", group: "workers", as: Job.self, into: jobs)
    /// var token: SimpleEventToken?
    /// jobs.event.addObserver(&token) { _ in
    ///     for delivery in jobs.takeAll() {
    ///         guard case .event(let event) = delivery else { continue }  // .resync: jobs were pruned unhandled
    ///         Task {
    ///             try await run(event.value)
    ///             member.acknowledge(event)  // only now is the job the group's no longer
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - stream: The stream's name.
    ///   - group: The group's name; members of one group share the stream, different groups each get all of it.
    ///   - start: Where the group starts when this member creates it (`.latest`, `.oldestAvailable` or `.after(n)`);
    ///     ignored when the group exists.
    ///   - decode: Turns a stored payload into a value; when it throws, the event is logged, counted, acknowledged and
    ///     skipped.
    ///   - place: Takes a delivery; returns `false` to refuse it (it is offered again after
    ///     ``Options/retryInterval`` and stays this member's meanwhile).
    /// - Returns: The membership: acknowledge with it; ``StreamGroupSubscription/cancel()`` leaves the group.
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``, ``StreamError/invalidGroupName(_:reason:)``,
    ///   ``StreamError/unsupportedStart(_:reason:)`` for `.stored`.
    @MainActor
    public func subscribe<Value: Sendable>(
        to stream: String,
        group: String,
        from start: StreamStart = .latest,
        decode: @escaping @Sendable (ByteBuffer) throws -> Value,
        place: @escaping @Sendable (StreamDelivery<Value>) -> Bool
    ) throws(StreamError) -> StreamGroupSubscription {
        try registerMember(stream: stream, group: group, start: start, decode: decode, place: place, wait: nil)
    }

    /// Joins `group` of `stream`, placing this member's deliveries into `mailbox` (see
    /// ``subscribe(to:group:from:decode:place:)``).
    ///
    /// A full mailbox acts by its overflow policy, as for a plain subscription: `.suspend` waits for room, `.reject`
    /// holds the group's events back for this member (they stay its own, their leases renewed, and nothing is lost),
    /// and `.dropOldest` and `.dropNewest` drop: a dropped event counts as acknowledged once the consumer takes a later
    /// delivery (``StreamGroupSubscription/Counts/dropped``).
    ///
    /// - Parameters:
    ///   - stream: The stream's name.
    ///   - group: The group's name.
    ///   - start: Where the group starts when this member creates it.
    ///   - mailbox: Where the deliveries go; its takes are observed, so it serves this member only.
    ///   - decode: Turns a stored payload into a value; when it throws, the event is logged, counted, acknowledged and
    ///     skipped.
    /// - Returns: The membership.
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``, ``StreamError/invalidGroupName(_:reason:)``,
    ///   ``StreamError/unsupportedStart(_:reason:)``, ``StreamError/mailboxAlreadyTracked(positionName:)`` when the
    ///   mailbox serves another member or stored position.
    @MainActor
    public func subscribe<Value: Sendable>(
        to stream: String,
        group: String,
        from start: StreamStart = .latest,
        into mailbox: BoundedMailbox<StreamDelivery<Value>>,
        decode: @escaping @Sendable (ByteBuffer) throws -> Value
    ) throws(StreamError) -> StreamGroupSubscription {
        try registerMember(
            stream: stream,
            group: group,
            start: start,
            decode: decode,
            place: { mailbox.place($0) },
            wait: mailbox.sendWaitingForRoom,
            observeTakes: { mailbox._observeTakes($0) }
        )
    }

    /// Joins `group` of `stream`, keeping only this member's latest delivery in `mailbox`; a replaced delivery counts
    /// as acknowledged once the consumer takes.
    ///
    /// - Parameters:
    ///   - stream: The stream's name.
    ///   - group: The group's name.
    ///   - start: Where the group starts when this member creates it.
    ///   - mailbox: Where the deliveries go; it serves this member only.
    ///   - decode: Turns a stored payload into a value; when it throws, the event is logged, counted, acknowledged and
    ///     skipped.
    /// - Returns: The membership.
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``, ``StreamError/invalidGroupName(_:reason:)``,
    ///   ``StreamError/unsupportedStart(_:reason:)``, ``StreamError/mailboxAlreadyTracked(positionName:)``.
    @MainActor
    public func subscribe<Value: Sendable>(
        to stream: String,
        group: String,
        from start: StreamStart = .latest,
        into mailbox: LatestMailbox<StreamDelivery<Value>>,
        decode: @escaping @Sendable (ByteBuffer) throws -> Value
    ) throws(StreamError) -> StreamGroupSubscription {
        try registerMember(
            stream: stream,
            group: group,
            start: start,
            decode: decode,
            place: { mailbox.place($0) },
            wait: nil,
            observeTakes: { mailbox._observeTakes($0) }
        )
    }

    /// Joins `group` of `stream`, keeping this member's latest delivery per key in `mailbox`; a replaced delivery
    /// counts as acknowledged once the consumer takes.
    ///
    /// - Parameters:
    ///   - stream: The stream's name.
    ///   - group: The group's name.
    ///   - start: Where the group starts when this member creates it.
    ///   - mailbox: Where the deliveries go; it serves this member only.
    ///   - decode: Turns a stored payload into a value; when it throws, the event is logged, counted, acknowledged and
    ///     skipped.
    ///   - key: The key a delivery is kept under (give resyncs a key of their own). Runs on the reader task.
    /// - Returns: The membership.
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``, ``StreamError/invalidGroupName(_:reason:)``,
    ///   ``StreamError/unsupportedStart(_:reason:)``, ``StreamError/mailboxAlreadyTracked(positionName:)``.
    @MainActor
    public func subscribe<Key: Hashable & Sendable, Value: Sendable>(
        to stream: String,
        group: String,
        from start: StreamStart = .latest,
        into mailbox: KeyedMailbox<Key, StreamDelivery<Value>>,
        decode: @escaping @Sendable (ByteBuffer) throws -> Value,
        key: @escaping @Sendable (StreamDelivery<Value>) -> Key
    ) throws(StreamError) -> StreamGroupSubscription {
        try registerMember(
            stream: stream,
            group: group,
            start: start,
            decode: decode,
            place: { mailbox.place(key: key($0), value: $0) },
            wait: nil,
            observeTakes: { mailbox._observeTakes($0) }
        )
    }

    /// Joins `group` of `stream`, whose payloads are `Value`s encoded as JSON, placing this member's deliveries into
    /// `mailbox`.
    ///
    /// - Parameters:
    ///   - stream: The stream's name.
    ///   - group: The group's name.
    ///   - start: Where the group starts when this member creates it.
    ///   - type: The payloads' type; a payload that does not decode is logged, counted, acknowledged and skipped.
    ///   - mailbox: Where the deliveries go; it serves this member only.
    /// - Returns: The membership.
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``, ``StreamError/invalidGroupName(_:reason:)``,
    ///   ``StreamError/unsupportedStart(_:reason:)``, ``StreamError/mailboxAlreadyTracked(positionName:)``.
    @MainActor
    public func subscribe<Value: Decodable & Sendable>(
        to stream: String,
        group: String,
        from start: StreamStart = .latest,
        as type: Value.Type,
        into mailbox: BoundedMailbox<StreamDelivery<Value>>
    ) throws(StreamError) -> StreamGroupSubscription {
        try subscribe(to: stream, group: group, from: start, into: mailbox) { buffer in
            try JSONDecoder().decode(Value.self, from: Data(buffer.readableBytesView))
        }
    }

    /// Registers a member; `observeTakes` installs the mailbox's take observer (when it can see takes).
    @MainActor
    func registerMember<Value: Sendable>(
        stream: String,
        group: String,
        start: StreamStart,
        decode: @escaping @Sendable (ByteBuffer) throws -> Value,
        place: @escaping @Sendable (StreamDelivery<Value>) -> Bool,
        wait: (@Sendable (StreamDelivery<Value>) async throws -> Void)?,
        observeTakes: ((@escaping @MainActor ([StreamDelivery<Value>]) -> Void) -> Bool)? = nil
    ) throws(StreamError) -> StreamGroupSubscription {
        try StreamSchema.validate(stream: stream)
        do {
            try StreamSchema.validate(stream: group)
        } catch {
            guard case .invalidStreamName(_, let reason) = error else { throw error }
            throw .invalidGroupName(group, reason: reason)
        }
        if case .stored = start {
            throw .unsupportedStart(
                start,
                reason: "a consumer group keeps its own position; use .latest, "
                    + ".oldestAvailable or .after(_:) for where a new group starts"
            )
        }
        let offer = Self.offering(place: place, wait: wait)
        let id = nextSubscriptionID()
        let member = StreamGroupSubscription(
            stream: stream,
            group: group,
            member: Self.memberName(),
            start: start,
            tracksTakes: observeTakes != nil,
            id: id,
            window: options.groupWindow,
            placeEvent: { raw in
                switch Self.decoding(raw, with: decode) {
                case .success(let event): offer(.event(event))
                case .failure(let error): .undecodable(error)
                }
            },
            placeResync: { offer(.resync($0)) },
            wakeReader: { [weak self] in self?.markGroupDue($0) }
        )
        if let observeTakes {
            let observed = observeTakes { [weak member] deliveries in
                member?.took(deliveries.compactMap { if case .event(let event) = $0 { event.sequence } else { nil } })
            }
            guard observed else { throw .mailboxAlreadyTracked(positionName: "group \(group) of \(stream)") }
        }
        registry.withLock { registry in
            registry.groups[id] = member
            registry.dueGroups.insert(id)
            registry.wake?.yield()
        }
        registerForInspection(member)
        return member
    }

    /// A member name unique across processes and hosts: the host, the process id and a random part.
    private static func memberName() -> String {
        "\(ProcessInfo.processInfo.hostName)-\(getpid())-\(UUID().uuidString.prefix(8))"
    }

    /// Marks `member` due and wakes the reader.
    func markGroupDue(_ member: StreamGroupSubscription) {
        registry.withLock { registry in
            guard registry.groups[member.id] != nil else { return }
            registry.dueGroups.insert(member.id)
            registry.wake?.yield()
        }
    }

    /// Marks every member due (a reconnect, the lease timer), with its renewal due when `renew` is set.
    func markGroupsDue(renew: Bool) {
        let members = registry.withLock { registry in
            registry.dueGroups.formUnion(registry.groups.keys)
            return Array(registry.groups.values)
        }
        guard !members.isEmpty else { return }  // a subscriber without groups is not woken by the lease timer
        if renew { for member in members { member.machine.withLock { $0.renewalTimerFired() } } }
        _ = registry.withLock { $0.wake?.yield() }
    }
}
#endif
