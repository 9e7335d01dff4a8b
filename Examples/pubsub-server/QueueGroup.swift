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
/// - **A message is done only once its `MSG` line's write reached the kernel.** Then its `acknowledge` runs (cluster
///   mode: the consumer group's acknowledgement). When the client goes away before that (it disconnects, or a write of
///   its fails), the message goes to the next client of the group instead. With no client left it waits for one
///   until the group is closed (the broker closes a group its last client left), and is then dropped here; in
///   cluster mode the member, closed with it, hands it back to the consumer group, for another server.
/// - **No order across clients**: a message handed on arrives after later ones reached other clients.
@MainActor
final class QueueGroup {
    /// One message waiting for, or on its way to, a client.
    struct Message {
        let text: String
        /// Runs once the message's line was written to a client: the message is done. `nil` when nothing needs to
        /// know (a server on its own).
        let acknowledge: (@MainActor () -> Void)?
    }

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
        let waited = waiting
        waiting = []
        for message in waited { dispatch(message) }
    }

    /// Removes `client`; what was already queued for it still goes out, or comes back here if it never does.
    func remove(_ client: ClientConnection) {
        guard let index = clients.firstIndex(where: { $0 === client }) else { return }
        clients.remove(at: index)
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
    }

    /// Hands `message` to the client whose turn it is, or keeps it in ``waiting`` when none accepts group messages;
    /// when its line can no longer be written, hands it on again.
    private func dispatch(_ message: Message) {
        guard !isClosed else { return }
        guard let client = chooseClient() else {
            waiting.append(message)
            return
        }
        client.viewModel.deliverGroupMessage("MSG \(id.topic) \(message.text)") { [weak self] written in
            if written {
                message.acknowledge?()
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
