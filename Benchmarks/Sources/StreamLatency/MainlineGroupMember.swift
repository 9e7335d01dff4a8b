import MainlineEvents
import MainlineLoop
import MainlinePostgres
import StreamWire

/// A member process of the mainline-group peer: a `StreamSubscriber` whose one subscription joins the group
/// `workers` of the stream, placing into a `BoundedMailbox` observed on the main loop (as a user's service would).
/// Each take is handled (each event's payload parsed into its number, and one line printed: ``HandledBatch``), then
/// every event of it acknowledged. It runs until the measuring process kills it; with `--stall-after`, it stops
/// acknowledging and taking once it handled that many, and waits to be killed.
///
/// Must be used on the main actor.
@MainActor
final class MainlineGroupMember {
    private let settings: MemberSettings
    private let subscriber: StreamSubscriber
    private let mailbox: BoundedMailbox<StreamDelivery<Int>>
    private var subscription: StreamGroupSubscription?
    private var token: SimpleEventToken?
    /// Events handled so far.
    private var handledCount = 0
    /// Whether it stopped, mid-work, to be killed (``MemberSettings/stallAfter``).
    private var isStalled = false

    /// A member with `settings.batch` as its window and `settings.lease` as its lease; nothing connects until
    /// ``run()``.
    init(settings: MemberSettings) {
        self.settings = settings
        var options = StreamSubscriber.Options()
        options.groupWindow = settings.batch
        options.groupLease = .milliseconds(Int64(settings.lease * 1_000))
        subscriber = StreamSubscriber(configuration: settings.configuration, options: options)
        // A member never holds more than its window, so `.reject` never refuses.
        mailbox = BoundedMailbox(capacity: 2 * settings.batch, overflow: .reject)
    }

    /// Connects, prints `ready`, waits for the go, joins the group and handles its deliveries; returns only if the
    /// subscriber fails.
    ///
    /// - Throws: What the subscriber throws, or ``ReceiverError/notListening(_:)`` when it is not connected in 30 s.
    func run() async throws {
        let subscriber = subscriber
        let running = Task { try await subscriber.run() }
        let deadline = ContinuousClock.now + .seconds(30)
        while !subscriber.counts.isConnected {
            guard ContinuousClock.now < deadline else { throw ReceiverError.notListening(settings.target) }
            try await Task.sleep(for: .milliseconds(5))
        }
        emitLine("ready")
        await waitForGo()
        mailbox.event.addObserver(&token) { [unowned self] _ in self.handle() }
        subscription = try subscriber.subscribe(
            to: settings.target,
            group: GroupBacklog.group,
            from: .after(0),
            into: mailbox
        ) {
            Int(String(buffer: $0)) ?? -1
        }
        try await running.value
    }

    /// Takes what the mailbox holds, handles it, acknowledges it.
    private func handle() {
        guard !isStalled else { return }  // what the mailbox holds stays there, unhandled, until the kill
        var batch = HandledBatch(handledAt: monotonicNanoseconds())
        var events: [StreamEvent<Int>] = []
        for delivery in mailbox.takeAll() {
            switch delivery {
            case .event(let event):
                batch.append(event.value, redelivered: event.deliveryCount > 1)
                events.append(event)
            case .resync(let resync):
                emitLine("resync \(resync.lastDelivered) \(resync.resumesAfter)")
            }
        }
        guard !events.isEmpty else { return }
        batch.emit()
        handledCount += events.count
        if settings.stallAfter > 0, handledCount >= settings.stallAfter {
            isStalled = true
            emitLine("stalled")
            return
        }
        for event in events { subscription?.acknowledge(event) }
    }
}
