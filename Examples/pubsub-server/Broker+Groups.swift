import Mainline

/// Queue groups: `QSUB <group> <topic>` puts a client in a group whose clients share the topic's messages, each
/// message to one of them, while plain `SUB`s still get every message. Runs on the main actor.
///
/// - On a server of its own, a `PUB` hands its message to one client of each group of the topic (``QueueGroup``).
/// - In cluster mode, a group is a MainlinePostgres consumer group shared by every server: each server with clients of
///   the group is one member (``GroupFeed``), and hands what its member receives to one local client; a message is
///   acknowledged once that client's `MSG` line was written, and a server that dies before that loses it to another
///   server as soon as its database session ends (at least once).
/// - `UNSUB <topic>` leaves the topic's plain subscription and every group of the topic the client is in.
extension Broker {
    /// A client is in at most this many queue groups at once; its next `QSUB` gets `ERR too many groups`. A group
    /// exists only while a client is in it (or a `QSUB` waits to join it), so the groups of a server are bounded by its
    /// clients, and no client can take the places of the others.
    nonisolated static let maximumGroupsPerClient = 1_000

    /// The queue groups with clients on this server (or with a `QSUB` waiting to join).
    var queueGroupCount: Int { queueGroups.values.reduce(0) { $0 + $1.count } }

    /// The group `viewModel`'s client may join as `id`, or `nil` once it was answered why not: the topic or the group's
    /// name breaks cluster mode's rules (in both modes: a control character, an empty or too long name), the client is
    /// in the group already, or in ``maximumGroupsPerClient`` groups.
    private func groupToJoin(_ id: QueueGroupID, for viewModel: ClientViewModel) -> QueueGroup? {
        if let reason = Self.refusal(of: id.topic) ?? Self.refusal(ofGroup: id.group) {
            viewModel.reply(reason)
            return nil
        }
        guard !viewModel.queueGroups.contains(id) else {
            viewModel.reply("ERR already in group \(id.group) of \(id.topic)")
            return nil
        }
        guard viewModel.queueGroups.count < Self.maximumGroupsPerClient else {
            viewModel.reply("ERR too many groups (limit \(Self.maximumGroupsPerClient))")
            return nil
        }
        return queueGroup(for: id)
    }

    /// `QSUB` on a server of its own: joins `client` to the group at once and answers `OK QSUB <group> <topic>`.
    func queueSubscribe(_ client: ClientConnection, to id: QueueGroupID) {
        let viewModel = client.viewModel
        guard let group = groupToJoin(id, for: viewModel) else { return }
        _ = viewModel.join(id)
        // The answer first: what waited for a client of the group follows it.
        viewModel.reply("OK QSUB \(id.group) \(id.topic)")
        group.add(client)
    }

    /// `QSUB` in cluster mode: counts the client in the group's member on this server (opening it if it is the
    /// first), then joins it and answers `OK QSUB <group> <topic>`, or answers `ERR` and counts nothing.
    func queueSubscribe(_ client: ClientConnection, to id: QueueGroupID, through cluster: ClusterLink) async {
        let viewModel = client.viewModel
        guard let group = groupToJoin(id, for: viewModel) else { return }
        // The group stays while the member opens, and keeps what the member delivers meanwhile for its first client.
        group.joining += 1
        defer {
            group.joining -= 1
            closeIfUnused(group)
        }
        do {
            try await cluster.join(id)
        } catch {
            viewModel.reply("ERR QSUB \(id.group) \(id.topic) failed: \(ClusterLink.reason(error))")
            return
        }
        // The client may have left while the member opened: it no longer counts.
        guard !client.isClosed, viewModel.join(id) else {
            cluster.leave(id)
            return
        }
        viewModel.reply("OK QSUB \(id.group) \(id.topic)")
        group.add(client)
    }

    /// Takes `client` out of every group of `topic` it is in; `false` when it was in none.
    func leaveGroups(of topic: String, client: ClientConnection) -> Bool {
        let ids = client.viewModel.queueGroups.filter { $0.topic == topic }
        for id in ids { leave(id, client: client) }
        return !ids.isEmpty
    }

    /// Takes `client` out of the group `id`: it gets none of the group's messages from now on, and the group closes
    /// (its member too, in cluster mode) when it was its last client here.
    func leave(_ id: QueueGroupID, client: ClientConnection) {
        guard client.viewModel.leave(id) else { return }
        if let group = queueGroups[id.topic]?[id.group] {
            group.remove(client)
            closeIfUnused(group)
        }
        cluster?.leave(id)
    }

    /// The group `id`, created if it is new.
    private func queueGroup(for id: QueueGroupID) -> QueueGroup {
        if let group = queueGroups[id.topic]?[id.group] { return group }
        let group = QueueGroup(id: id)
        queueGroups[id.topic, default: [:]][id.group] = group
        return group
    }

    /// Forgets and closes `group` when no client and no `QSUB` keeps it.
    private func closeIfUnused(_ group: QueueGroup) {
        guard group.isUnused, queueGroups[group.id.topic]?[group.id.group] === group else { return }
        queueGroups[group.id.topic]?[group.id.group] = nil
        if queueGroups[group.id.topic]?.isEmpty == true { queueGroups[group.id.topic] = nil }
        group.close()
    }

    /// The `ERR` line for a group name that cannot name a consumer group, or `nil` when it can.
    private static func refusal(ofGroup group: String) -> String? {
        do {
            try ClusterLink.validate(group: group)
            return nil
        } catch {
            guard case .invalidGroupName(_, let reason) = error else { return "ERR group: \(error)" }
            return "ERR group \(group.debugDescription) cannot be a consumer group: \(reason)"
        }
    }
}
