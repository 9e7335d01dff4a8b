import Logging
import Mainline
import MainlinePostgres

/// One topic's stream as this server reads it while the topic has local subscribers: the subscription, and the
/// mailbox its deliveries wait in until the main loop hands them to the broker.
///
/// Must be used on the main actor (``ClusterLink`` owns it); only the subscriber's reader task places into
/// ``mailbox``, which is thread-safe.
///
/// The mailbox refuses when full (`.reject`): the stream is then held back and read again a little later, so a busy
/// loop loses nothing and holds at most ``capacity`` messages per topic.
@MainActor
final class TopicFeed {
    /// How many deliveries may wait for the loop.
    static let capacity = 1_000

    /// The topic it reads.
    let topic: String
    /// The topic's local subscribers (`SUB`s answered, or waiting for the feed to open).
    var subscribers = 0
    /// Reads the stream's position and subscribes; every first `SUB` of the topic waits for it.
    var opening: Task<Void, any Error>?
    /// Where the subscriber places the stream's messages.
    let mailbox = BoundedMailbox<StreamDelivery<String>>(capacity: TopicFeed.capacity, overflow: .reject)
    /// Whether it was closed (no local subscriber remains).
    private(set) var isClosed = false
    private var subscription: StreamSubscription?
    private var token: SimpleEventToken?

    /// A feed not yet reading anything.
    init(topic: String) {
        self.topic = topic
    }

    /// Starts handing what `subscription` places to `deliver` (topic, message), in the stream's order.
    func start(
        _ subscription: StreamSubscription,
        logger: Logger,
        deliver: @escaping @MainActor (String, String) -> Void
    ) {
        self.subscription = subscription
        let (mailbox, topic) = (mailbox, topic)
        mailbox.event.addObserver(&token) { _ in
            for delivery in mailbox.takeAll() {
                switch delivery {
                case .event(let event):
                    deliver(topic, event.value)
                case .resync(let resync):
                    // Only retention deletes events, and the server prunes nothing: another program did.
                    logger.warning(
                        "messages of a topic were deleted before this server read them",
                        metadata: [
                            "topic": "\(topic)", "after": "\(resync.lastDelivered)",
                            "through": "\(resync.resumesAfter)",
                        ]
                    )
                }
            }
        }
    }

    /// Stops reading: nothing more is delivered, even what already waits in the mailbox.
    func close() {
        isClosed = true
        subscription?.cancel()
        subscription = nil
        token?.remove()
        token = nil
    }
}
