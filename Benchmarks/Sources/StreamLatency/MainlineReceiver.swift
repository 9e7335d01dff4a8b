import MainlineEvents
import MainlineLoop
import MainlinePostgres
import PostgresNIO
import StreamWire

/// The Mainline peer's receiving half: a `StreamSubscriber` (its own `LISTEN` connection, reading the outbox on each
/// hint) placing into a `BoundedMailbox`, whose observer on the main loop stamps each delivery as it takes it. The
/// figure therefore includes the hop onto the loop, as a user's observer gets it.
///
/// It subscribes with a `place` closure that stamps each delivery as the subscriber's reader places it and then puts
/// it into the mailbox: what the `into: mailbox` overload does, plus one clock read, so the figure splits into the
/// part before the mailbox (commit, hint, read) and the hop onto the loop.
///
/// Must be used on the main actor.
@MainActor
final class MainlineReceiver: Receiver {
    /// A delivery and when the subscriber's reader placed it (``monotonicNanoseconds()``).
    struct Placed: Sendable {
        var delivery: StreamDelivery<Stamp?>
        var placedAt: Int64
    }

    private let subscriber: StreamSubscriber
    private let subscription: StreamSubscription
    private let mailbox: BoundedMailbox<Placed>
    private var token: SimpleEventToken?
    private var running: Task<Void, any Error>?

    /// Subscribes to `stream` from its first event; nothing connects until ``start()``.
    ///
    /// - Parameters:
    ///   - configuration: Where the database is.
    ///   - stream: The stream the publishing process writes.
    ///   - tally: Where the deliveries go.
    init(configuration: PostgresConnection.Configuration, stream: String, tally: DeliveryTally) throws {
        subscriber = StreamSubscriber(configuration: configuration)
        // `.reject` with room for a whole run: nothing is dropped, and a full mailbox would hold the stream back.
        let mailbox = BoundedMailbox<Placed>(capacity: 1 << 22, overflow: .reject)
        self.mailbox = mailbox
        subscription = try subscriber.subscribe(
            to: stream,
            from: .after(0),
            decode: { buffer in Stamp(text: String(buffer: buffer)) },
            place: { delivery in mailbox.place(Placed(delivery: delivery, placedAt: monotonicNanoseconds())) }
        )
        mailbox.event.addObserver(&token) { _ in
            let now = monotonicNanoseconds()
            for placed in mailbox.takeAll() {
                switch placed.delivery {
                case .event(let event):
                    tally.record(event.value, sequence: event.sequence, placedAt: placed.placedAt, at: now)
                case .resync: tally.recordResync()
                }
            }
        }
    }

    func start() async throws {
        let subscriber = subscriber
        running = Task { try await subscriber.run() }
        // Listening, and the stream's start resolved (its first read done): whatever commits now is delivered.
        let deadline = ContinuousClock.now + .seconds(30)
        while !(subscriber.counts.isConnected && subscription.lastSequence != nil) {
            guard ContinuousClock.now < deadline else { throw ReceiverError.notListening(subscription.stream) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func stop() async {
        subscription.cancel()
        running?.cancel()
        _ = await running?.result
    }
}
