import Mainline
import MainlinePostgres

/// Queue groups in cluster mode: one consumer group member (``GroupFeed``) per server and group while the server has
/// clients of the group. Runs on the main actor.
///
/// - A group's member opens on its server's first `QSUB` of it: the stream's last sequence is read through the pool and
///   the member joins the consumer group `<group>` of `pubsub.<topic>`, which starts after that sequence if this member
///   creates it. So every message published after a `QSUB`'s `OK` reaches the group; a group that exists already
///   (its clients on other servers, or before) continues from its position in the database.
/// - It closes when the server's last client of the group leaves: the member leaves the consumer group and hands back
///   what it held unacknowledged.
extension ClusterLink {
    /// Checks that `group` can name a consumer group.
    ///
    /// - Throws: `StreamError.invalidGroupName` when it cannot (it holds a control character).
    static func validate(group: String) throws(StreamError) {
        do {
            try StreamSchema.validate(stream: group)
        } catch {
            guard case .invalidStreamName(_, let reason) = error else { throw error }
            throw .invalidGroupName(group, reason: reason)
        }
    }

    /// Counts one more local client of the queue group `id`; the first opens its member, and every caller returns once
    /// the member is registered with the listener (which joins the consumer group on its connection).
    ///
    /// - Throws: What kept the member from opening; the client is not counted then.
    func join(_ id: QueueGroupID) async throws {
        let feed: GroupFeed
        if let open = groupFeeds[id] {
            feed = open
        } else {
            let stream = try Self.stream(for: id.topic)
            try Self.validate(group: id.group)
            feed = GroupFeed(id: id)
            groupFeeds[id] = feed
            feed.opening = Task { try await self.open(feed, stream: stream) }
        }
        feed.clients += 1
        do {
            try await feed.opening?.value
        } catch {
            leave(feed)
            throw error
        }
    }

    /// Counts one local client of the queue group `id` less; the last one closes its member.
    func leave(_ id: QueueGroupID) {
        if let feed = groupFeeds[id] { leave(feed) }
    }

    /// Counts one client of `feed` less; at none, forgets and closes it.
    private func leave(_ feed: GroupFeed) {
        feed.clients -= 1
        guard feed.clients <= 0 else { return }
        if groupFeeds[feed.id] === feed { groupFeeds[feed.id] = nil }
        feed.close()
    }

    /// Reads the stream's position through the pool, then joins the consumer group, which starts after it if it is new.
    private func open(_ feed: GroupFeed, stream: String) async throws {
        do {
            let head = try await position(of: stream)
            guard !feed.isClosed else { return }  // every client left meanwhile
            let member = try subscriber.subscribe(
                to: stream,
                group: feed.id.group,
                from: .after(head),
                into: feed.mailbox
            ) { String(buffer: $0) }
            let id = feed.id
            feed.start(member, logger: logger) { [weak self] message, acknowledge in
                self?.onGroupMessage?(id, message, acknowledge)
            }
        } catch {
            // A later QSUB tries afresh.
            if groupFeeds[feed.id] === feed { groupFeeds[feed.id] = nil }
            throw error
        }
    }
}
