import Foundation
import Mainline
import NIOCore

/// The topics and the clients, on the main loop. SwiftNIO threads post what clients do; nothing here is shared
/// with them.
///
/// A topic is an `InitializedSubject` of its latest ``Publication`` (``TopicTable``), which exists while a client
/// subscribes to it; each subscription is an observation of it held by the subscriber's ``ClientViewModel`` until the
/// client unsubscribes or leaves. A client holds at most ``maximumSubscriptions`` of them, so no client can fill the
/// table for the others; a `PUB` to a topic nobody subscribes to reaches nobody and holds nothing.
///
/// Topic names follow cluster mode's rules in both modes (``refusal(of:)``): a name with a control character is
/// refused.
///
/// A queue group (`QSUB`) is a ``QueueGroup`` per group and topic with local clients (`Broker+Groups.swift`): a topic's
/// message goes to one client of each of its groups, besides every plain subscriber.
///
/// In cluster mode (``cluster`` set, `--postgres`), `PUB`, `SUB`, `QSUB` and `UNSUB` go through the database
/// (`Broker+Cluster.swift`), and a topic's publications come from its stream instead of from local `PUB`s; fan-out,
/// paused clients and `STATS` are the same.
@MainActor
final class Broker {
    /// A client subscribes to at most this many topics at once; its next `SUB` gets `ERR too many subscriptions`.
    nonisolated static let maximumSubscriptions = 1_000

    /// How long a client that holds no subscription may complete no command line before it is closed.
    let idleTimeout: Duration
    /// At most this many clients are connected at once; the next one gets `ERR server full` and is closed.
    let maximumClients: Int
    /// The longest line a client may send, in bytes, without its line break (`--max-line-bytes`).
    let maximumLineLength: Int
    /// How long a queue group's client may take none of its bytes before its group lines go to the group's other
    /// clients (`--slow-consumer-ms`; ``SlowConsumerWatch``).
    let slowConsumerBound: Duration
    /// The database that carries the topics in cluster mode; `nil` for a server on its own.
    let cluster: ClusterLink?
    /// The topics with subscribers (or, in cluster mode, a `SUB` waiting for the topic's feed).
    var topics = TopicTable()
    /// Topic → group name → the queue group, for the groups with local clients (or a `QSUB` waiting to join).
    var queueGroups: [String: [String: QueueGroup]] = [:]
    private var clients: [ObjectIdentifier: ClientConnection] = [:]
    private var nextClientID = 0
    private var sequence: UInt64 = 0
    /// `PUB`s this server performed (in cluster mode: committed).
    var published = 0
    /// Counts of clients that have left, so that `STATS` totals do not shrink when a client goes.
    private var departed = MailboxCounts()
    private var isShuttingDown = false
    private var allClosed: CheckedContinuation<Void, Never>?
    /// SIGUSR1 prints the main loop's snapshot on standard output, for an operator (`kill -USR1 <pid>`).
    private var snapshotOnSignal: SignalRegistration?

    /// A broker with no topics and no clients.
    ///
    /// - Parameters:
    ///   - idleTimeout: How long a client that holds no subscription may complete no command line (`--idle-timeout-s`).
    ///   - maximumClients: How many clients may be connected at once (`--max-clients`).
    ///   - maximumLineLength: The longest line a client may send (`--max-line-bytes`).
    ///   - slowConsumerBound: How long a queue group's client may take none of its bytes (`--slow-consumer-ms`).
    ///   - cluster: The database that carries the topics (`--postgres`); `nil` for a server on its own.
    init(
        idleTimeout: Duration = .seconds(300),
        maximumClients: Int = 10_000,
        maximumLineLength: Int = Command.defaultMaximumLineLength,
        slowConsumerBound: Duration = QueueGroup.defaultSlowConsumerBound,
        cluster: ClusterLink? = nil
    ) {
        self.idleTimeout = idleTimeout
        self.maximumClients = maximumClients
        self.maximumLineLength = maximumLineLength
        self.slowConsumerBound = slowConsumerBound
        self.cluster = cluster
        snapshotOnSignal = MainLoop.main.onSignal(.sigusr1) { _ in
            let report = "pubsub-server: snapshot\n\(MainLoop.main.snapshot())\npubsub-server: end of snapshot\n"
            FileHandle.standardOutput.write(Data(report.utf8))
        }
        cluster?.onMessage = { [weak self] topic, message in self?.publish(message, to: topic) }
        cluster?.onGroupMessage = { [weak self] id, message, acknowledge in
            // No group: its last client left and its member is closing, which hands the message back.
            self?.queueGroups[id.topic]?[id.group]?.dispatch(message, acknowledge: acknowledge)
        }
    }

    // MARK: From the network (posted by SwiftNIO threads)

    /// A client connected: it gets a ``ClientConnection``, unless the server is full or shutting down. `backlog`
    /// counts its commands on their way here.
    func connected(_ channel: any Channel, backlog: CommandBacklog) {
        guard !isShuttingDown else {
            channel.close(promise: nil)
            return
        }
        guard clients.count < maximumClients else {
            // Never a client: no view model, no idle clock. Its commands and its disconnection find no client.
            channel.writeAndFlush(ByteBuffer(string: "ERR server full\n")).whenComplete { _ in
                channel.close(promise: nil)
            }
            return
        }
        nextClientID += 1
        clients[ObjectIdentifier(channel)] = ClientConnection(
            id: nextClientID,
            socket: NIOClientSocket(channel: channel, backlog: backlog),
            idleTimeout: idleTimeout,
            slowConsumerBound: slowConsumerBound
        )
    }

    func disconnected(_ channel: ObjectIdentifier) {
        guard let client = clients.removeValue(forKey: channel) else { return }
        let subscribed = Array(client.viewModel.subscriptions.keys)
        // Out of its groups first: clearing its view model hands its unwritten group messages to the others.
        for id in client.viewModel.queueGroups { leave(id, client: client) }
        client.disconnected()
        for topic in subscribed { releaseTopic(topic) }
        departed = departed + client.viewModel.outgoing.counts
        if clients.isEmpty, let allClosed {
            self.allClosed = nil
            allClosed.resume()
        }
    }

    /// A client sent a command line: performs it, and tells `backlog` once it finished (in cluster mode, once the
    /// commands before it and it have: ``CommandQueue``).
    func received(
        _ line: Result<Command, Command.ParseError>,
        from channel: ObjectIdentifier,
        backlog: CommandBacklog
    ) {
        guard let client = clients[channel] else {
            backlog.finished()
            return
        }
        client.noteCommand()
        if let cluster {
            // One command at a time per client: some wait for the database.
            client.commands.perform { [weak self] in
                await self?.perform(line, for: client, through: cluster)
                backlog.finished()
            }
            return
        }
        defer { backlog.finished() }
        switch line {
        case .failure(let error):
            client.viewModel.reply("ERR \(error)")
        case .success(let command):
            perform(command, for: client)
        }
    }

    func lineTooLong(from channel: ObjectIdentifier) {
        guard let client = clients[channel] else { return }
        client.viewModel.reply("ERR line too long (limit \(maximumLineLength) bytes)")
        client.close()
    }

    // MARK: Commands

    /// Performs `command` on the main loop, at once: every command of a server on its own, and the ones that need
    /// no database in cluster mode.
    func perform(_ command: Command, for client: ClientConnection) {
        let viewModel = client.viewModel
        switch command {
        case .subscribe(let name):
            guard let reason = refusal(ofSubscription: name, for: viewModel) else {
                _ = viewModel.subscribe(name, to: topics.retain(name))
                viewModel.reply("OK SUB \(name)")
                return
            }
            viewModel.reply(reason)
        case .queueSubscribe(let group, let name):
            queueSubscribe(client, to: QueueGroupID(group: group, topic: name))
        case .unsubscribe(let name):
            let unsubscribed = unsubscribe(client, from: name)
            let left = leaveGroups(of: name, client: client)
            viewModel.reply(unsubscribed || left ? "OK UNSUB \(name)" : "ERR not subscribed to \(name)")
        case .publish(let name, let message):
            if let reason = Self.refusal(of: name) {
                viewModel.reply(reason)
                return
            }
            published += 1
            publish(message, to: name)
            for group in queueGroups[name]?.values.map({ $0 }) ?? [] { group.dispatch(message) }
        case .stats:
            viewModel.reply(stats(for: viewModel))
        case .debug:
            // A multi-line answer in a line protocol: one prefixed line each, and an end marker.
            for line in MainLoop.main.snapshot().description.split(separator: "\n") { viewModel.reply("DEBUG \(line)") }
            viewModel.reply("DEBUG END")
        case .quit:
            viewModel.reply("BYE")
            client.close()
        }
    }

    /// Hands `message` to the topic's subscribers: a local `PUB`, or (in cluster mode) the next message of the
    /// topic's stream. Numbered with the broker's next sequence, it becomes the topic's value, which each observing
    /// view model delivers. A topic nobody here subscribes to has no subject and reaches nobody.
    func publish(_ message: String, to name: String) {
        guard let topic = topics.subject(name) else { return }
        sequence += 1
        topic.value = Publication(sequence: sequence, message: message)
    }

    /// `STATS clients=… topics=… published=… delivered=… dropped=… groups=… you.pending=… you.dropped=…`:
    /// `delivered` and `dropped` count outgoing lines over every client, past and present; `dropped` are the messages
    /// a newer one of the same topic replaced while the client was not reading (never a queue group's); `groups`
    /// counts the queue groups with clients on this server.
    func stats(for viewModel: ClientViewModel) -> String {
        let all = clients.values.reduce(departed) { $0 + $1.viewModel.outgoing.counts }
        let mine = viewModel.outgoing.counts
        return """
            STATS clients=\(clients.count) topics=\(topics.count) published=\(published) \
            delivered=\(all.delivered) dropped=\(all.dropped) groups=\(queueGroupCount) \
            you.pending=\(mine.pending) you.dropped=\(mine.dropped)
            """
    }

    // MARK: Shutdown

    /// Sends each client what it can take within `deadline`, then closes every connection; returns once all are
    /// closed.
    func shutDown(deadline: Duration) async {
        isShuttingDown = true
        snapshotOnSignal?.cancel()
        for client in clients.values { client.close() }
        let giveUp = MainLoop.main.schedule(after: deadline) { [weak self] in
            for client in self?.clients.values.map({ $0 }) ?? [] { client.closeNow() }
        }
        if !clients.isEmpty {
            await withCheckedContinuation { allClosed = $0 }
        }
        giveUp.cancel()
    }
}

extension MailboxCounts {
    static func + (lhs: MailboxCounts, rhs: MailboxCounts) -> MailboxCounts {
        MailboxCounts(
            accepted: lhs.accepted + rhs.accepted,
            rejected: lhs.rejected + rhs.rejected,
            dropped: lhs.dropped + rhs.dropped,
            delivered: lhs.delivered + rhs.delivered
        )
    }
}
