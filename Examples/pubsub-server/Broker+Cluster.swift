import Mainline

/// Commands in cluster mode (`--postgres`): `PUB`, `SUB`, `QSUB` and `UNSUB` go through the database; the rest is performed
/// as on a server on its own. Runs on the main actor, one command of a client at a time (``CommandQueue``).
///
/// - `PUB <topic> <message>` publishes to the stream `pubsub.<topic>` and answers nothing once it committed, as on
///   a server on its own; every subscriber, on every server, then gets it from the stream. When it cannot be
///   published (the database is down or does not answer within ``ClusterLink/answerDeadline``) the client gets
///   `ERR PUB <topic> failed: <reason>`: never silently lost.
/// - `SUB <topic>` answers `OK SUB <topic>` once the topic's feed reads the stream (the first local `SUB` reads the
///   stream's position first): every message published after the `OK` reaches the client. `ERR SUB <topic>
///   failed: <reason>` when the database cannot be reached.
/// - `QSUB <group> <topic>` answers `OK QSUB <group> <topic>` once this server's member of the consumer group is
///   registered (`Broker+Groups.swift`); `ERR QSUB <group> <topic> failed: <reason>` when the database cannot be
///   reached, `ERR group <name> cannot be a consumer group: <reason>` for a name it cannot take.
/// - A topic that cannot be a stream (a control character in its name) gets `ERR topic <name> cannot be a stream:
///   <reason>` for either.
extension Broker {
    /// Performs one line of `client`'s in cluster mode.
    func perform(
        _ line: Result<Command, Command.ParseError>,
        for client: ClientConnection,
        through cluster: ClusterLink
    ) async {
        let viewModel = client.viewModel
        switch line {
        case .failure(let error):
            viewModel.reply("ERR \(error)")
        case .success(.publish(let name, let message)):
            if let reason = Self.refusal(of: name) {
                viewModel.reply(reason)
                return
            }
            do {
                try await cluster.publish(message, to: name)
                published += 1
            } catch {
                viewModel.reply("ERR PUB \(name) failed: \(ClusterLink.reason(error))")
            }
        case .success(.subscribe(let name)):
            await subscribe(client, to: name, through: cluster)
        case .success(.queueSubscribe(let group, let name)):
            await queueSubscribe(client, to: QueueGroupID(group: group, topic: name), through: cluster)
        case .success(.unsubscribe(let name)):
            let unsubscribed = unsubscribe(client, from: name)
            let left = leaveGroups(of: name, client: client)
            viewModel.reply(unsubscribed || left ? "OK UNSUB \(name)" : "ERR not subscribed to \(name)")
        case .success(let command):
            perform(command, for: client)
        }
    }

    /// `SUB` in cluster mode: counts the client as a subscriber of the topic's feed (opening it if it is the first),
    /// then subscribes its view model and answers `OK SUB`, or answers `ERR` and counts nothing.
    private func subscribe(_ client: ClientConnection, to name: String, through cluster: ClusterLink) async {
        let viewModel = client.viewModel
        if let reason = refusal(ofSubscription: name, for: viewModel) {
            viewModel.reply(reason)
            return
        }
        // Held while the feed opens, so that what it delivers meanwhile has a subject; let go if the SUB fails.
        let topic = topics.retain(name)
        do {
            try await cluster.retain(name)
        } catch {
            topics.release(name)
            viewModel.reply("ERR SUB \(name) failed: \(ClusterLink.reason(error))")
            return
        }
        // The client may have left while the feed opened: it no longer counts.
        guard !client.isClosed, viewModel.subscribe(name, to: topic) else {
            releaseTopic(name)
            return
        }
        viewModel.reply("OK SUB \(name)")
    }

    /// The `ERR` line for a topic that cannot be a stream, or `nil` when it can.
    static func refusal(of topic: String) -> String? {
        do {
            _ = try ClusterLink.stream(for: topic)
            return nil
        } catch {
            guard case .invalidStreamName(_, let reason) = error else { return "ERR topic: \(error)" }
            return "ERR topic \(topic.debugDescription) cannot be a stream: \(reason)"
        }
    }
}
