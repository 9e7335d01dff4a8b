#if Postgres
import CoreMetrics
import Foundation
import Logging
import MainlineEvents
import MainlineLoop
import PostgresNIO

/// Reads named streams from PostgreSQL and places their events, in order and once each, into the mailboxes of its
/// subscriptions.
///
/// All operations on `StreamSubscriber` are thread-safe, except ``subscribe(to:from:decode:place:)``,
/// ``subscribe(to:group:from:decode:place:)`` and their overloads, which must be called on the main actor (where the
/// mailboxes deliver).
///
/// A plain subscription receives every event of its stream; a consumer group's members share it (see
/// ``StreamGroupSubscription``). A subscription started ``StreamStart/stored(_:initially:)`` keeps its position in the
/// database.
///
/// A subscriber owns one dedicated connection (postgres-nio's pool cannot `LISTEN`). ``run()`` connects, `LISTEN`s,
/// and only then reads every subscription's stream from its last sequence, so nothing committed while it was away
/// is missed; from then on each hint (`NOTIFY`) makes it read the stream's new rows from the outbox table. Rows are
/// read at least once and placed exactly once: a subscription remembers its last sequence and skips what it has.
///
/// The connection is checked every ``Options/healthCheckInterval``; a connection that ends or stops answering is
/// closed and replaced, with a delay that doubles from ``Options/initialReconnectDelay`` up to
/// ``Options/maximumReconnectDelay``. A stopped and restarted database is therefore recovered from without help.
///
/// ```swift
/// let subscriber = StreamSubscriber(configuration: configuration)
/// let orders = BoundedMailbox<StreamDelivery<Order>>(capacity: 1_000, overflow: .reject)
/// let subscription = try subscriber.subscribe(to: "orders", as: Order.self, into: orders)
/// var token: SimpleEventToken?
/// orders.event.addObserver(&token) { _ in
///     for delivery in orders.takeAll() {
///         switch delivery {
///         case .event(let event): model.apply(event.value)
///         case .resync: model.reload()
///         }
///     }
/// }
/// Task { try await subscriber.run() }  // until the task is cancelled; or put it in a ServiceGroup
/// ```
///
/// Bad input never stops it: a malformed hint, a hint for a stream nobody here reads, or a payload the decoder
/// refuses is logged (a ``StreamError``), counted (``counts``, ``StreamSubscription/counts``, and the
/// `mainline_stream_bad_input` metric) and skipped.
public final class StreamSubscriber: Sendable {
    /// The tables and channel it reads.
    public let schema: StreamSchema
    /// How it watches its connection and reads.
    public let options: Options
    let configuration: PostgresConnection.Configuration
    let logger: Logger
    let metricsFactory: any MetricsFactory
    /// The subscriptions and what is due. Protected by its lock.
    let registry = _Locked(Registry())

    struct Registry {
        var nextID = 0
        var subscriptions: [Int: StreamSubscription] = [:]
        /// Subscriptions whose streams have news (or must be read for another reason).
        var due: Set<Int> = []
        /// The consumer group members, by id (ids are shared with `subscriptions`).
        var groups: [Int: StreamGroupSubscription] = [:]
        /// Members with something to do: news, acknowledgements, a renewal, a retry.
        var dueGroups: Set<Int> = []
        /// Cancelled subscriptions with a stored position, whose last position is still to be written.
        var retired: [StreamSubscription] = []
        /// Set by the position timer: write the stored positions.
        var positionsDue = false
        var counts = Counts()
        var isRunning = false
        /// Wakes the current connection's reader; holds at most one pending wake-up, so any number of hints cost one
        /// read per stream. A new stream per connection: a reader cancelled while waiting finishes its stream for
        /// good.
        var wake: AsyncStream<Void>.Continuation?
        /// The current connection's session lock, which its group members' claims name; `nil` while disconnected.
        var session: GroupSession?
    }

    /// Creates a subscriber; nothing connects until ``run()``.
    ///
    /// - Parameters:
    ///   - configuration: Where and how to connect. Its `options.additionalStartupParameters` gets
    ///     `application_name` = ``Options/applicationName``.
    ///   - schema: The tables and channel; the publishers must use the same.
    ///   - options: Health checks, reconnects and reads.
    ///   - logger: Where it logs connection changes and bad input.
    ///   - metricsFactory: Where its metrics go: `mainline_stream_delivered`, `mainline_stream_resyncs` and
    ///     `mainline_stream_lag_seconds` (dimension `stream`), `mainline_stream_reconnects`, and
    ///     `mainline_stream_bad_input` (dimension `kind`: `malformed_hint`, `unknown_stream_hint`,
    ///     `undecodable_payload`). The global `MetricsSystem` unless a test passes its own.
    public init(
        configuration: PostgresConnection.Configuration,
        schema: StreamSchema = .default,
        options: Options = Options(),
        logger: Logger = Logger(label: "mainline.postgres.subscriber"),
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        var configuration = configuration
        configuration.options.additionalStartupParameters.append(("application_name", options.applicationName))
        self.configuration = configuration
        self.schema = schema
        self.options = options
        self.logger = logger
        self.metricsFactory = metricsFactory
    }

    deinit {
        cancelWaits()
    }

    /// What it saw so far. Thread-safe.
    public var counts: Counts { registry.withLock { $0.counts } }

    /// Subscribes to `stream`: each event is decoded with `decode` and handed to `place`, in sequence order, once.
    ///
    /// The other overloads place into a Mainline mailbox; use this one for any other destination. `place` runs on the
    /// subscriber's reader task (not on the loop), one call at a time, and must not block.
    ///
    /// - Parameters:
    ///   - stream: The stream's name.
    ///   - start: Where to start reading.
    ///   - decode: Turns a stored payload into a value; when it throws, the event is logged, counted
    ///     (``StreamSubscription/Counts/undecodable``) and skipped.
    ///   - place: Takes a delivery; returns `false` to refuse it (it is offered again after
    ///     ``Options/retryInterval``, and nothing after it is placed before it).
    /// - Returns: The subscription; ``StreamSubscription/cancel()`` ends it.
    /// - Throws: ``StreamError/invalidStreamName(_:reason:)``; for ``StreamStart/stored(_:initially:)`` (whose
    ///   position then follows what `place` accepted) ``StreamError/invalidPositionName(_:reason:)``,
    ///   ``StreamError/positionNameInUse(_:stream:otherStream:)`` and ``StreamError/unsupportedStart(_:reason:)``.
    @MainActor
    public func subscribe<Value: Sendable>(
        to stream: String,
        from start: StreamStart = .latest,
        decode: @escaping @Sendable (ByteBuffer) throws -> Value,
        place: @escaping @Sendable (StreamDelivery<Value>) -> Bool
    ) throws(StreamError) -> StreamSubscription {
        try register(stream: stream, start: start, decode: decode, place: place, wait: nil)
    }

    /// Registers a subscription whose deliveries go to `place`; when `place` refuses and `wait` is given, `wait` is
    /// run (off the reader) to wait for room and place, and the subscription is read again once it returned. With a
    /// stored position, `observeTakes` (when given) installs the mailbox's take observer, so the position follows what
    /// the consumer took; without it, a placed delivery counts as taken.
    @MainActor
    func register<Value: Sendable>(
        stream: String,
        start: StreamStart,
        decode: @escaping @Sendable (ByteBuffer) throws -> Value,
        place: @escaping @Sendable (StreamDelivery<Value>) -> Bool,
        wait: (@Sendable (StreamDelivery<Value>) async throws -> Void)?,
        observeTakes: ((@escaping @MainActor ([StreamDelivery<Value>]) -> Void) -> Bool)? = nil
    ) throws(StreamError) -> StreamSubscription {
        try StreamSchema.validate(stream: stream)
        if case .stored(let name, let initially) = start { try validateStored(name, initially: initially, of: stream) }
        let offer = Self.offering(place: place, wait: wait)
        let id = nextSubscriptionID()
        let subscription = StreamSubscription(
            stream: stream,
            start: start,
            tracksTakes: observeTakes != nil,
            id: id,
            placeEvent: { raw in
                switch Self.decoding(raw, with: decode) {
                case .success(let event): offer(.event(event))
                case .failure(let error): .undecodable(error)
                }
            },
            placeResync: { offer(.resync($0)) },
            onCancel: { [weak self] in self?.remove($0) }
        )
        if let name = subscription.positionName, let observeTakes {
            let observed = observeTakes { [weak subscription] deliveries in
                let positions = deliveries.map { delivery in
                    switch delivery {
                    case .event(let event): event.sequence
                    case .resync(let resync): resync.resumesAfter
                    }
                }
                // A keyed mailbox hands its values out by key, not in sequence order; what it held is taken either way.
                if let last = positions.max() { subscription?.took(last) }
            }
            guard observed else { throw .mailboxAlreadyTracked(positionName: name) }
        }
        registry.withLock { registry in
            registry.subscriptions[subscription.id] = subscription
            registry.due.insert(subscription.id)
            registry.wake?.yield()
        }
        registerForInspection(subscription)
        return subscription
    }

    /// Checks a stored position's name and fallback start, and that no other subscription here uses the name.
    @MainActor
    private func validateStored(_ name: String, initially: StreamStart, of stream: String) throws(StreamError) {
        do {
            try StreamSchema.validate(stream: name)
        } catch {
            guard case .invalidStreamName(_, let reason) = error else { throw error }
            throw .invalidPositionName(name, reason: reason)
        }
        if case .stored = initially {
            throw .unsupportedStart(
                initially,
                reason: "a stored position starts initially at .latest, "
                    + ".oldestAvailable or .after(_:), not at another stored position"
            )
        }
        let other = registry.withLock { registry in
            registry.subscriptions.values.first { $0.positionName == name && !$0.isCancelled }
        }
        if let other { throw .positionNameInUse(name, stream: stream, otherStream: other.stream) }
    }

    /// The next subscription's id (plain subscriptions and group members share the numbering). Thread-safe.
    func nextSubscriptionID() -> Int {
        registry.withLock { registry in
            defer { registry.nextID += 1 }
            return registry.nextID
        }
    }

    /// What becomes of a delivery offered to `place`: placed, refused, or — when `place` refuses and `wait` is given —
    /// waiting for room through `wait`. Thread-safe.
    static func offering<Value: Sendable>(
        place: @escaping @Sendable (StreamDelivery<Value>) -> Bool,
        wait: (@Sendable (StreamDelivery<Value>) async throws -> Void)?
    ) -> @Sendable (StreamDelivery<Value>) -> StreamSubscription._Placement {
        { delivery in
            if place(delivery) { return .placed }
            guard let wait else { return .refused }
            return .mustWait(send: { try await wait(delivery) })
        }
    }

    /// `raw` with its payload decoded by `decode` (everything else kept: key, delivery count), or the decoder's error.
    static func decoding<Value: Sendable>(
        _ raw: StreamEvent<ByteBuffer>,
        with decode: (ByteBuffer) throws -> Value
    ) -> Result<StreamEvent<Value>, any Error> {
        Result {
            StreamEvent(
                stream: raw.stream,
                sequence: raw.sequence,
                publishedAt: raw.publishedAt,
                key: raw.key,
                value: try decode(raw.value),
                deliveryCount: raw.deliveryCount
            )
        }
    }

    private func remove(_ subscription: StreamSubscription) {
        registry.withLock { registry in
            registry.subscriptions[subscription.id] = nil
            registry.due.remove(subscription.id)
            if subscription.positionName != nil { registry.retired.append(subscription) }
        }
    }

    /// Marks subscriptions due and wakes the reader.
    func markDue(_ select: (StreamSubscription) -> Bool) {
        registry.withLock { registry in
            for (id, subscription) in registry.subscriptions where select(subscription) { registry.due.insert(id) }
            registry.wake?.yield()
        }
    }
}
#endif
