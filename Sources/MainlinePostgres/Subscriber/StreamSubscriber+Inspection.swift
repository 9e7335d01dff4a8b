#if Postgres
import Foundation
import MainlineInspectorSchema
import MainlineLoop

// What a subscription and a group member show an inspector (`LoopInspector`, `mainline-console`'s streams view): where
// they read, how far behind the stream's head they are, what they hold. Read under their own locks on the inspector's
// thread, so a stalled loop does not hide them.
extension StreamSubscriber {
    /// Registers `subscription` with the inspector's registry if an inspector has been started; otherwise does
    /// nothing, at the cost of one atomic load. Thread-safe.
    func registerForInspection(_ subscription: StreamSubscription) {
        let registry = _InspectionRegistry.shared
        guard registry.isActive else { return }
        registry.register(subscription, in: .streams) { [weak self, weak subscription] _ -> StreamSummary? in
            guard let subscription else { return nil }
            let (cursor, head, publishedAt, resync, counts) = subscription.state.withLock { state in
                (state.cursor, state.head, state.lastPublishedAt, state.lastResync, state.counts)
            }
            let lag = Self.lag(from: cursor, to: head, lastPublishedAt: publishedAt)
            return StreamSummary(
                kind: "subscription",
                stream: subscription.stream,
                position: cursor,
                head: head,
                lagEvents: lag.events,
                lagSeconds: lag.seconds,
                delivered: counts.delivered,
                resyncs: counts.resyncs,
                lastResync: resync,
                connected: self?.counts.isConnected ?? false
            )
        }
    }

    /// Registers `member` with the inspector's registry if an inspector has been started (see the other overload).
    func registerForInspection(_ member: StreamGroupSubscription) {
        let registry = _InspectionRegistry.shared
        guard registry.isActive else { return }
        registry.register(member, in: .streams) { [weak self, weak member] _ -> StreamSummary? in
            guard let member else { return nil }
            let machine = member.machine.withLock { $0 }
            let lag = Self.lag(from: machine.groupPosition, to: machine.head, lastPublishedAt: machine.lastPublishedAt)
            return StreamSummary(
                kind: "groupMember",
                stream: member.stream,
                group: member.group,
                member: member.member,
                position: machine.groupPosition,
                head: machine.head,
                lagEvents: lag.events,
                lagSeconds: lag.seconds,
                delivered: machine.counts.delivered,
                held: machine.held.count,
                redelivered: machine.counts.redelivered,
                resyncs: machine.counts.resyncs,
                lastResync: machine.lastResync,
                connected: self?.counts.isConnected ?? false
            )
        }
    }

    /// Events between `position` and `head` (none until both are known), and, while there are some, how long ago the
    /// last event delivered was published.
    private static func lag(
        from position: Int64?,
        to head: Int64?,
        lastPublishedAt: Date?
    )
        -> (events: Int64?, seconds: Double?)
    {
        guard let position, let head else { return (nil, nil) }
        let events = max(head - position, 0)
        guard events > 0 else { return (0, 0) }
        return (events, lastPublishedAt.map { max(Date().timeIntervalSince($0), 0) })
    }
}

extension _InspectionRegistry.Category {
    /// Stream subscriptions and consumer group members: the inspector's `streams`.
    package static let streams = Self("streams")
}
#endif
