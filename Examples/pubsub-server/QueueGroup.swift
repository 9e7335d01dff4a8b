import Mainline

/// A queue group's name and the topic its clients share (`QSUB <group> <topic>`): one group of one topic. The same
/// group name with another topic is another group.
///
/// All operations on `QueueGroupID` are thread-safe (it is a value).
struct QueueGroupID: Hashable, Sendable, CustomStringConvertible {
    /// The group's name, as the client gave it (in cluster mode, the consumer group's name too).
    let group: String
    /// The topic whose messages the group's clients share.
    let topic: String

    /// `group <group> of <topic>`, as `ERR` lines name it.
    var description: String { "group \(group) of \(topic)" }
}

/// One queue group on this server: its local clients, and the topic's messages it hands them, each to one client.
///
/// Must be used on the main actor (the ``Broker`` owns it).
///
/// Guarantees, on this server:
/// - **Each message goes to one client of the group**, round-robin, preferring a client that is taking bytes (its
///   outgoing buffer is below its mark) over one that is paused; when every client is paused, the next in turn gets it
///   anyway and it waits in that client's mailbox, never replaced. What a group holds for its clients is bounded by
///   what arrives: on a server of its own, what is published meanwhile; in cluster mode, the member's window.
/// - **A client that stops reading does not stop the group.** A client that holds a group line not yet written to the
///   kernel, and takes none of its bytes for the slow consumer bound (``defaultSlowConsumerBound`` unless
///   `--slow-consumer-ms` says otherwise), is a slow consumer (``SlowConsumerWatch``): every group line it holds
///   unwritten is taken back and handed to the group's other clients, and it gets no group message until it has taken
///   its bytes down to its low mark; then it gets its turn again, and what waited for a client. A line taken back
///   while still in its mailbox is never sent to it. One already handed to SwiftNIO reaches it if it reads again:
///   when that write reaches the kernel before another client's write of the message, the message is done there (and
///   a copy still waiting in the group is forgotten); otherwise the message reaches two clients (at least once). A
///   line that reached the kernel is done and is never taken back.
/// - **A message is done only once its `MSG` line's write reached the kernel.** Then its `acknowledge` runs (cluster
///   mode: the consumer group's acknowledgement). When the client goes away before that (it disconnects, or a write of
///   its fails), the message goes to the next client of the group instead. With no client left it waits for one
///   until the group is closed (the broker closes a group its last client left), and is then dropped here; in
///   cluster mode the member, closed with it, hands it back to the consumer group, for another server.
/// - **No order across clients**: a message handed on arrives after later ones reached other clients.
@MainActor
final class QueueGroup {
    /// One message waiting for, or on its way to, a client (or two, after a slow consumer's was taken back).
    final class Message {
        let text: String
        /// Runs once the message's line was written to a client: the message is done. `nil` when nothing needs to
        /// know (a server on its own).
        let acknowledge: (@MainActor () -> Void)?
        /// Whether a client's write of its line reached the kernel: it is acknowledged, and never handed on again.
        var isDone = false

        init(text: String, acknowledge: (@MainActor () -> Void)?) {
            self.text = text
            self.acknowledge = acknowledge
        }
    }

    /// How long a client may hold unwritten group lines without taking any of its bytes before they go to the group's
    /// other clients, unless `--slow-consumer-ms` says otherwise.
    nonisolated static let defaultSlowConsumerBound = Duration.seconds(2)

    /// The group and its topic.
    let id: QueueGroupID
    /// The clients of the group on this server, in the order they joined.
    private(set) var clients: [ClientConnection] = []
    /// `QSUB`s that wait for the database before they join (cluster mode): the group stays while any does.
    var joining = 0
    /// Messages no client could take (none accepts group messages): handed out as soon as one joins.
    private(set) var waiting: [Message] = []
    /// The client whose turn is next, as an index into ``clients``.
    private var next = 0
    /// Whether ``close()`` was called: nothing more is handed out.
    private(set) var isClosed = false
    /// Each client's observation of it keeping up again (a slow consumer no more), by the client's identity.
    private var keepingUp: [ObjectIdentifier: SimpleEventToken] = [:]

    /// An empty group.
    init(id: QueueGroupID) {
        self.id = id
    }

    /// Whether nothing keeps the group: no client, and no `QSUB` waiting to join.
    var isUnused: Bool { clients.isEmpty && joining == 0 }

    /// Adds `client`, then hands it whatever waited for a client.
    func add(_ client: ClientConnection) {
        guard !clients.contains(where: { $0 === client }) else { return }
        clients.append(client)
        keepingUp[ObjectIdentifier(client)] = client.slowConsumer.keepsUpAgain.addObserver { [weak self] _ in
            self?.handOutWaiting()
        }
        handOutWaiting()
    }

    /// Removes `client`; what was already queued for it still goes out, or comes back here if it never does.
    func remove(_ client: ClientConnection) {
        guard let index = clients.firstIndex(where: { $0 === client }) else { return }
        clients.remove(at: index)
        keepingUp.removeValue(forKey: ObjectIdentifier(client))?.remove()
        if index < next { next -= 1 }
        if next >= clients.count { next = 0 }
    }

    /// Hands `text` to one client of the group (see the type's guarantees); `acknowledge` runs once its line was
    /// written.
    func dispatch(_ text: String, acknowledge: (@MainActor () -> Void)? = nil) {
        dispatch(Message(text: text, acknowledge: acknowledge))
    }

    /// Forgets the clients and what waits: nothing more is handed out, and nothing acknowledged that was not yet.
    func close() {
        isClosed = true
        clients = []
        waiting = []
        for token in keepingUp.values { token.remove() }
        keepingUp = [:]
    }

    /// Hands what waited for a client to the clients that accept group messages (one joined, or one kept up again);
    /// what none accepts waits on.
    private func handOutWaiting() {
        let waited = waiting
        waiting = []
        for message in waited { dispatch(message) }
    }

    /// Hands `message` to the client whose turn it is, or keeps it in ``waiting`` when none accepts group messages;
    /// when its line can no longer be written (or was taken back from a slow consumer), hands it on again. The first
    /// write of it that reaches the kernel, on any client, acknowledges it; a copy still waiting is then forgotten.
    private func dispatch(_ message: Message) {
        guard !isClosed, !message.isDone else { return }
        guard let client = chooseClient() else {
            waiting.append(message)
            return
        }
        client.deliverGroupMessage("MSG \(id.topic) \(message.text)") { [weak self] written in
            guard !message.isDone else { return }
            if written {
                message.isDone = true
                message.acknowledge?()
                self?.waiting.removeAll { $0 === message }
            } else {
                self?.dispatch(message)
            }
        }
    }

    /// The next client in turn that is taking bytes, else the next that accepts group messages at all; advances the
    /// turn past it.
    private func chooseClient() -> ClientConnection? {
        let order = clients.indices.map { (next + $0) % clients.count }
        let chosen =
            order.first { clients[$0].acceptsGroupMessages && clients[$0].isTakingBytes }
            ?? order.first { clients[$0].acceptsGroupMessages }
        guard let chosen else { return nil }
        next = (chosen + 1) % clients.count
        return clients[chosen]
    }
}
