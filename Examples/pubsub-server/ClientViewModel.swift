import Mainline

/// What a client has queued to go out: the latest message of each topic, or one reply.
enum OutgoingKey: Hashable, Sendable {
    /// The latest `MSG` of a topic: a newer one replaces it while the client is not reading.
    case topic(String)
    /// A reply to one command (`OK`, `ERR`, `STATS`, `BYE`): never replaced.
    case reply(UInt64)
    /// A queue group's `MSG`, handed to this client alone: never replaced, and its group hears when its write
    /// completed (``ClientViewModel/groupLineWritten(_:written:)``).
    case groupMessage(UInt64)
}

/// One client's state on the main loop: its subscriptions and its outgoing mailbox.
///
/// Must be used on the main actor.
///
/// Its host is the client's connection (``ClientConnection``), which resumes it while the client's socket takes
/// bytes and pauses it while it does not. While resumed, everything delivered goes straight to the connection, in
/// order; while paused, it waits in ``outgoing``, a `KeyedMailbox` that keeps the latest message per topic and counts
/// the ones it replaces. The connection pauses it in the middle of a loop iteration, the moment the bytes it holds
/// for the client reach its mark, so the lines published after that wait here too. So a client that reads slowly
/// costs the server at most one message per topic it subscribes to beyond that mark, never a backlog.
///
/// A queue group's messages (``deliverGroupMessage(_:written:)``) are the exception to "latest per topic": each is
/// queued under a key of its own, never replaced, and its group hears once its line was written (or never will be),
/// so that the group can acknowledge it or hand it to another client. What a group hands a client is bounded by the
/// group (see ``QueueGroup``).
@MainActor
final class ClientViewModel: BaseViewModel {
    let id: Int
    /// What waits to go out while the client is not taking bytes.
    let outgoing: KeyedMailbox<OutgoingKey, String>
    /// Topic → the observation of that topic, for the whole life of the client (paused clients keep collecting).
    private(set) var subscriptions: [String: Disposable] = [:]
    /// The queue groups the client is in (`QSUB`); their messages come through ``deliverGroupMessage(_:written:)``.
    private(set) var queueGroups: Set<QueueGroupID> = []
    /// Where lines go while resumed, with the key each was queued under; set by the host for each resumed span, which
    /// then calls ``drain()``. The host may clear it from inside a call (it pauses the view model the moment the client
    /// holds enough).
    var sink: ((OutgoingKey, String) -> Void)?
    private var nextReply: UInt64 = 0
    /// The group messages queued or in flight, by their key's number → what to tell their group once the write
    /// completed (`true`) or can no longer complete (`false`).
    private var receipts: [UInt64: (Bool) -> Void] = [:]
    /// The group messages taken back (``takeBackGroupMessages()``) whose lines may still be written, by their key's
    /// number → what to tell their group if one is.
    private var takenBack: [UInt64: (Bool) -> Void] = [:]

    init(id: Int, loop: any Loop = MainLoop.main) {
        self.id = id
        // Named: with the loop instrumented, its drops count in `mainline_mailbox_drops{mailbox="pubsub-client"}`.
        self.outgoing = KeyedMailbox(loop: loop, name: "pubsub-client")
        super.init(loop: loop)
    }

    /// Queues a reply line; replies are never dropped.
    func reply(_ line: String) {
        nextReply &+= 1
        deliver(line, key: .reply(nextReply))
    }

    /// Queues a queue group's `MSG` line for this client alone; `written` runs on the main actor: `true` when the
    /// line's write reached the kernel, `false` when it never will (the client went away, or its connection broke) or
    /// when it was taken back (``takeBackGroupMessages()``). A line taken back after it was handed to the host may still
    /// reach the kernel: then `written` runs a second time, with `true`. Like replies, such lines are never replaced
    /// while the client is paused.
    func deliverGroupMessage(_ line: String, written: @escaping (Bool) -> Void) {
        nextReply &+= 1
        receipts[nextReply] = written
        deliver(line, key: .groupMessage(nextReply))
    }

    /// Tells the group of the line queued under `key` whether its write completed (the host calls it, in the order the
    /// lines were written). A key that is not a group message's, or was told before, is ignored; the group of a line
    /// taken back (``takeBackGroupMessages()``) hears only that it was written after all.
    func groupLineWritten(_ key: OutgoingKey, written: Bool) {
        guard case .groupMessage(let number) = key else { return }
        if let receipt = receipts.removeValue(forKey: number) {
            receipt(written)
        } else if let receipt = takenBack.removeValue(forKey: number), written {
            receipt(true)
        }
    }

    /// Whether the client holds a queue group line not yet written (queued, or on its way to the kernel).
    var holdsGroupMessages: Bool { !receipts.isEmpty }

    /// Tells the group of every group line not yet written that it is taken back, oldest first, so that each group
    /// hands it to another client (the client is a slow consumer). A taken-back line still in ``outgoing`` is never
    /// sent (``takeOutgoing()``). One already handed to the host goes out if the client reads again; when its write
    /// reaches the kernel its group hears it (`written` runs again, with `true`) and takes it as done, unless another
    /// client's write of it was first: then the message reached two clients (at least once).
    func takeBackGroupMessages() {
        let unwritten = receipts.sorted { $0.key < $1.key }
        receipts = [:]
        for (number, receipt) in unwritten { takenBack[number] = receipt }
        for (_, receipt) in unwritten { receipt(false) }
    }

    /// Takes everything waiting in ``outgoing``, in the order it was first queued, but for the group lines taken back
    /// (``takeBackGroupMessages()``): they went to another client.
    func takeOutgoing() -> [(key: OutgoingKey, value: String)] {
        var lines = outgoing.takeAll()
        lines.removeAll { entry in
            guard case .groupMessage(let number) = entry.key, receipts[number] == nil else { return false }
            // Taken back and never sent: its group hears no more of it.
            takenBack[number] = nil
            return true
        }
        return lines
    }

    /// Whether the client holds a subscription or a queue group membership: it waits for messages, so it is not idle.
    var isSubscribed: Bool { !subscriptions.isEmpty || !queueGroups.isEmpty }

    /// Counts the client in the queue group `id`; `false` when it already is.
    func join(_ id: QueueGroupID) -> Bool {
        queueGroups.insert(id).inserted
    }

    /// Takes the client out of the queue group `id`; `false` when it was not in it. Lines of the group already queued
    /// for it still go out, and their group hears of them.
    func leave(_ id: QueueGroupID) -> Bool {
        queueGroups.remove(id) != nil
    }

    /// Queues `line` under `key`, and sends it at once if the client is taking bytes.
    func deliver(_ line: String, key: OutgoingKey) {
        outgoing.place(key: key, value: line)
        drain()
    }

    /// Sends everything waiting, in the order it was first queued, if the client is taking bytes.
    ///
    /// The whole batch goes to the sink even when the host pauses the view model part-way: the batch is already
    /// coalesced (a line per topic, and the replies) and taken from the mailbox, which counted it as delivered.
    func drain() {
        guard let sink else { return }
        for (key, line) in takeOutgoing() { sink(key, line) }
    }

    func subscribe(_ topic: String, to subject: InitializedSubject<Publication?>) -> Bool {
        guard subscriptions[topic] == nil else { return false }
        // Only what is published from now on: the topic's current value is history.
        let since = subject.value?.sequence ?? 0
        subscriptions[topic] = subject.observe { [weak self] publication in
            guard let self, let publication, publication.sequence > since else { return }
            deliver("MSG \(topic) \(publication.message)", key: .topic(topic))
        }
        return true
    }

    func unsubscribe(_ topic: String) -> Bool {
        guard let subscription = subscriptions.removeValue(forKey: topic) else { return false }
        subscription.dispose()
        return true
    }

    override func onCleared() {
        for subscription in subscriptions.values { subscription.dispose() }
        subscriptions = [:]
        queueGroups = []
        sink = nil
        // The client is gone: none of its group messages will be written; each group hands them to another client.
        takenBack = [:]
        let unwritten = receipts.sorted { $0.key < $1.key }.map(\.value)
        receipts = [:]
        for receipt in unwritten { receipt(false) }
    }
}

/// One `PUB`: numbered so that two equal messages in a row are two publications, not one.
struct Publication: Equatable, Sendable {
    let sequence: UInt64
    let message: String
}
