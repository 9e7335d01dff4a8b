import Logging
import Mainline
import MainlinePostgres

/// This server's member of one queue group in cluster mode: a MainlinePostgres consumer group member of the topic's
/// stream, and the mailbox its deliveries wait in until the main loop hands them to the group's clients.
///
/// Must be used on the main actor (``ClusterLink`` owns it); only the subscriber's reader task places into
/// ``mailbox``, which is thread-safe.
///
/// The member is the consumer group ``QueueGroupID/group`` of the stream `pubsub.<topic>`: the members of every server
/// share the stream, each message going to one member. Nothing is acknowledged when it is taken from the mailbox: each
/// message carries its acknowledgement to the ``QueueGroup``, which runs it once a client's `MSG` line was written. A
/// message this member holds unacknowledged stays its own while the server lives (its lease is renewed), and goes to
/// another member as soon as the server dies (its database session ends), when it is stuck past its lease, or when the
/// member is closed (handed back at once).
///
/// The mailbox refuses when full (`.reject`): the member's events then stay its own, and are offered again later.
@MainActor
final class GroupFeed {
    /// How many deliveries may wait for the loop: the member's window (it never holds more unacknowledged).
    static let capacity = StreamSubscriber.Options().groupWindow

    /// The group and topic it serves.
    let id: QueueGroupID
    /// The group's local clients (`QSUB`s answered, or waiting for the member to open).
    var clients = 0
    /// Reads the stream's position and joins the group; every first `QSUB` of the group on this server waits for it.
    var opening: Task<Void, any Error>?
    /// Where the member places the group's messages.
    let mailbox = BoundedMailbox<StreamDelivery<String>>(capacity: GroupFeed.capacity, overflow: .reject)
    /// Whether it was closed (no local client of the group remains).
    private(set) var isClosed = false
    private var member: StreamGroupSubscription?
    private var token: SimpleEventToken?

    /// A feed not yet in the group.
    init(id: QueueGroupID) {
        self.id = id
    }

    /// Starts handing what `member` places to `deliver` (the message, and how to acknowledge it).
    func start(
        _ member: StreamGroupSubscription,
        logger: Logger,
        deliver: @escaping @MainActor (_ message: String, _ acknowledge: @escaping @MainActor () -> Void) -> Void
    ) {
        self.member = member
        let (mailbox, id) = (mailbox, id)
        mailbox.event.addObserver(&token) { _ in
            for delivery in mailbox.takeAll() {
                switch delivery {
                case .event(let event):
                    let sequence = event.sequence
                    deliver(event.value) { member.acknowledge(sequence: sequence) }
                case .resync(let resync):
                    // Only retention deletes events, and the server prunes nothing: another program did.
                    logger.warning(
                        "messages of a queue group were deleted before any server of the group read them",
                        metadata: [
                            "group": "\(id.group)", "topic": "\(id.topic)", "after": "\(resync.lastDelivered)",
                            "through": "\(resync.resumesAfter)",
                        ]
                    )
                }
            }
        }
    }

    /// Leaves the consumer group: nothing more is delivered, and what the member holds unacknowledged goes back to the
    /// group at once, for the other servers' members.
    func close() {
        isClosed = true
        member?.cancel()
        member = nil
        token?.remove()
        token = nil
    }
}
