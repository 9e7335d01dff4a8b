#if Postgres
import Foundation
import Logging
import PostgresNIO

/// A member's rounds on the reader task: the reader asks the member's state machine (``GroupMember``) what to send,
/// sends it (``GroupStatements``, ``GroupRoundFunction``), and hands it the answer; between statements it places the
/// member's backlog (`StreamSubscriber+GroupPlacing.swift`).
///
/// Claims are serialised per group by the row lock on the group's row, held only while the round's function runs on
/// the server: key order needs each claim to see every claim committed before it, which `FOR UPDATE SKIP LOCKED` on
/// the claim rows cannot give (a skipped row of a key would let a later row of that key go to another member).
/// Acknowledgements and renewals ride on the round and touch only the member's own rows.
extension StreamSubscriber {
    /// Serves `member` until its state machine has nothing more to send: at most one claim, any number of writes.
    /// Runs on the reader task only.
    func serve(_ member: StreamGroupSubscription, on connection: PostgresConnection) async throws -> CatchUpResult {
        var mayClaim = true
        while true {
            let placement = placeBacklog(of: member)
            let action = member.machine.withLock { $0.nextRound(mayClaim: mayClaim && placement != .refused) }
            switch action {
            case .none:
                return placement
            case .join(let keep):
                let lost = try await join(member, keeping: keep, on: connection)
                member.machine.withLock { $0.joined(lost: lost) }
            case .round(let acknowledgements, let renew, let want):
                if want > 0 { mayClaim = false }
                let answer = try await round(
                    member,
                    acknowledgements: acknowledgements,
                    renew: renew,
                    want: want,
                    on: connection
                )
                if member.machine.withLock({ $0.roundAnswered(answer) }) { scheduleTakeoverCheck(for: member) }
            case .leave(let acknowledgements, let unplaced):
                let deleted = try await release(
                    member,
                    acknowledgements: acknowledgements,
                    keep: [],
                    uncount: unplaced,
                    on: connection
                )
                member.machine.withLock { $0.leftGroup(sent: acknowledgements.count, acknowledged: deleted) }
                registry.withLock { registry in
                    registry.groups[member.id] = nil
                    registry.dueGroups.remove(member.id)
                }
                return .done
            }
        }
    }

    /// The lease as seconds, for `make_interval`.
    var leaseSeconds: Double {
        let (seconds, attoseconds) = options.groupLease.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The current connection's session lock.
    private func currentSession() throws -> GroupSession {
        guard let session = registry.withLock({ $0.session }) else { throw StreamError.connectionEnded }
        return session
    }

    /// Creates the group's row if it is new, takes what the member keeps over into this connection's session, and hands
    /// back what earlier connections claimed for it and it never placed. Returns the sequences it kept that were no
    /// longer its own.
    private func join(
        _ member: StreamGroupSubscription,
        keeping keep: [Int64],
        on connection: PostgresConnection
    ) async throws -> [Int64] {
        let session = try currentSession()
        let position = try await startPosition(of: member.stream, from: member.start, on: connection)
        _ = try await connection.queryUnlessClosed(
            GroupStatements.createGroup(member, after: position, in: schema),
            logger: logger
        )
        let adopt = GroupStatements.adopt(keep, of: member, session: session, leaseSeconds: leaseSeconds, in: schema)
        var kept = Set<Int64>()
        for try await sequence in try await connection.queryUnlessClosed(adopt, logger: logger).decode(Int64?.self) {
            if let sequence { kept.insert(sequence) }
        }
        let acknowledged = Set(member.machine.withLock { $0.acknowledgements })
        return keep.filter { !kept.contains($0) && !acknowledged.contains($0) }
    }

    /// One round (``GroupRoundFunction``), its rows read into an answer.
    private func round(
        _ member: StreamGroupSubscription,
        acknowledgements: [Int64],
        renew: [Int64],
        want: Int,
        on connection: PostgresConnection
    ) async throws -> GroupMember.RoundAnswer {
        let query = GroupStatements.round(
            member,
            session: try currentSession(),
            leaseSeconds: leaseSeconds,
            acknowledgements: acknowledgements,
            renew: renew,
            want: want,
            in: schema
        )
        var answer = GroupMember.RoundAnswer()
        let rows = try await connection.queryUnlessClosed(query, logger: logger)
            .decode((Int32, Int64?, Int64?, Int32?, ByteBuffer?, Date?, String?).self)
        for try await (kind, sequence, other, deliveries, payload, publishedAt, key) in rows {
            switch (kind, sequence) {
            case (1, let sequence?):
                guard let payload, let publishedAt else { continue }
                answer.events.append(
                    StreamEvent(
                        stream: member.stream,
                        sequence: sequence,
                        publishedAt: publishedAt,
                        key: key,
                        value: payload,
                        deliveryCount: Int(deliveries ?? 1)
                    )
                )
            case (2, let sequence?):
                answer.gone.append(sequence)
            case (3, let sequence?):
                answer.gap = StreamResync(
                    stream: member.stream,
                    lastDelivered: sequence,
                    resumesAfter: other ?? sequence
                )
            case (4, _):
                answer.groupMissing = true
            case (5, let head?):
                answer.head = head
                answer.groupPosition = other
            case (0, let deleted?):
                answer.acknowledged = Int(deleted)
                answer.othersHoldClaims = (other ?? 0) != 0
            default:
                continue
            }
        }
        return answer
    }

    /// Deletes `acknowledgements` and hands back all but `keep` (see ``GroupStatements/release``); returns how many
    /// acknowledgements were still the member's.
    private func release(
        _ member: StreamGroupSubscription,
        acknowledgements: [Int64],
        keep: [Int64],
        uncount: [Int64]?,
        on connection: PostgresConnection
    ) async throws -> Int {
        let query = GroupStatements.release(
            member,
            acknowledgements: acknowledgements,
            keep: keep,
            uncount: uncount,
            in: schema
        )
        var deleted = 0
        for try await (count, _) in try await connection.queryUnlessClosed(query, logger: logger)
            .decode((Int64, Int64).self)
        {
            deleted = Int(count)
        }
        return deleted
    }

    /// Writes `member`'s acknowledgements and hands back what it claimed and will not place, before the subscriber
    /// lets go of its connection (whose end frees the rest for the other members); a later `run()` joins again.
    func releaseBeforeStopping(_ member: StreamGroupSubscription, on connection: PostgresConnection) async throws {
        let (acknowledgements, keep) = member.machine.withLock { $0.stop() }
        let deleted = try await release(
            member,
            acknowledgements: acknowledgements,
            keep: keep,
            uncount: nil,
            on: connection
        )
        member.machine.withLock { $0.stopped(sent: acknowledgements.count, acknowledged: deleted) }
    }

    /// After ``Options/groupTakeoverCheckInterval``, makes `member` due for a round: other members hold claims that
    /// it could take should their sessions end, and nothing else may wake it.
    private func scheduleTakeoverCheck(for member: StreamGroupSubscription) {
        let interval = options.groupTakeoverCheckInterval
        Task { [weak self, weak member] in
            try? await Task.sleep(for: interval)
            guard let self, let member else { return }
            member.machine.withLock { $0.takeoverCheckFired() }
            self.markGroupDue(member)
        }
    }
}
#endif
