#if Postgres
import Foundation
import PostgresNIO
@testable import MainlinePostgres

/// The database side of one consumer group, in memory: the stream's events, the group's `handed`, the claims and the
/// live sessions, with the statements of `GroupStatements` and `GroupRoundFunction` as atomic operations that follow
/// the same rules (the rules, restated from the SQL, are what the state-machine tests check the member against).
struct GroupModel {
    /// One claim row.
    struct Claim {
        var key: String?
        var member: String?
        var session: Int32?
        var deliveries: Int
        /// Whether its lease runs (`lease_until >= now()`).
        var leaseRunning: Bool
    }

    let stream = "s"
    /// The stream's events: sequence 1, 2, … with their keys.
    private(set) var keys: [String?] = []
    var head: Int64 { Int64(keys.count) }
    private(set) var handed: Int64 = 0
    private(set) var groupExists = false
    private(set) var claims: [Int64: Claim] = [:]
    /// Sessions whose advisory lock is held.
    var live: Set<Int32> = []

    mutating func publish(key: String?) { keys.append(key) }

    /// The event with `sequence`, as a member receives it.
    func event(_ sequence: Int64, deliveries: Int) -> StreamEvent<ByteBuffer> {
        let key = keys[Int(sequence) - 1]
        return StreamEvent(
            stream: stream,
            sequence: sequence,
            publishedAt: Date(timeIntervalSince1970: 0),
            key: key,
            value: ByteBuffer(string: "e\(sequence)"),
            deliveryCount: deliveries
        )
    }

    /// `GroupStatements.createGroup` (from `.after(0)`) and `adopt`: returns the sequences of `keep` still `member`'s.
    mutating func join(_ member: String, session: Int32, keep: [Int64]) -> [Int64] {
        groupExists = true
        var kept: [Int64] = []
        for (sequence, claim) in claims where claim.member == member {
            if keep.contains(sequence) {
                claims[sequence]?.session = session
                claims[sequence]?.leaseRunning = true
                kept.append(sequence)
            } else {
                claims[sequence] = Claim(
                    key: claim.key,
                    member: nil,
                    session: nil,
                    deliveries: max(claim.deliveries - 1, 0),
                    leaseRunning: false
                )
            }
        }
        return kept
    }

    /// `GroupStatements.release`: returns how many acknowledgements were still `member`'s.
    mutating func release(_ member: String, acknowledgements: [Int64], keep: [Int64], uncount: [Int64]?) -> Int {
        let deleted = deleteAcknowledged(acknowledgements, of: member)
        for (sequence, claim) in claims where claim.member == member && !keep.contains(sequence) {
            let uncounted = uncount.map { $0.contains(sequence) } ?? true
            claims[sequence] = Claim(
                key: claim.key,
                member: nil,
                session: nil,
                deliveries: max(claim.deliveries - (uncounted ? 1 : 0), 0),
                leaseRunning: false
            )
        }
        return deleted
    }

    /// The leases of `member`'s claims run out (it is alive but stuck).
    mutating func expireLeases(of member: String) {
        for (sequence, claim) in claims where claim.member == member { claims[sequence]?.leaseRunning = false }
    }

    /// Whether `claim` is held by a member other than `member` that the group still counts as holding it.
    private func isHeldByAnother(_ claim: Claim, than member: String) -> Bool {
        guard let holder = claim.member, holder != member, claim.leaseRunning else { return false }
        return claim.session.map { live.contains($0) } ?? true
    }

    private mutating func deleteAcknowledged(_ acknowledgements: [Int64], of member: String) -> Int {
        var deleted = 0
        for sequence in acknowledgements where claims[sequence]?.member == member {
            claims[sequence] = nil
            deleted += 1
        }
        return deleted
    }

    /// `GroupRoundFunction`: one round of `member`.
    mutating func round(
        _ member: String,
        session: Int32,
        acknowledgements: [Int64],
        renew: [Int64],
        want: Int
    ) -> GroupMember.RoundAnswer {
        var answer = GroupMember.RoundAnswer()
        answer.acknowledged = deleteAcknowledged(acknowledgements, of: member)
        for sequence in renew where claims[sequence]?.member == member {
            claims[sequence]?.leaseRunning = true
            claims[sequence]?.session = session
        }
        guard want > 0 else { return answer }
        guard groupExists else {
            answer.groupMissing = true
            return answer
        }
        let fresh = Array((handed + 1)...max(head, handed + 1)).filter { $0 <= head }.prefix(want)
        var blocked: [String: Int64] = [:]
        for (sequence, claim) in claims where isHeldByAnother(claim, than: member) {
            guard let key = claim.key else { continue }
            blocked[key] = min(blocked[key] ?? .max, sequence)
        }
        let free = claims.filter { sequence, claim in
            claim.member == nil || (claim.member != member && !isHeldByAnother(claim, than: member))
        }.keys
        let candidates = (Array(free) + fresh).sorted()
        let picked = candidates.filter { sequence in
            guard let key = keys[Int(sequence) - 1], let first = blocked[key] else { return true }
            return sequence < first
        }.prefix(want)
        for sequence in fresh {
            let mine = picked.contains(sequence)
            claims[sequence] = Claim(
                key: keys[Int(sequence) - 1],
                member: mine ? member : nil,
                session: mine ? session : nil,
                deliveries: mine ? 1 : 0,
                leaseRunning: mine
            )
        }
        for sequence in picked where !fresh.contains(sequence) {
            claims[sequence]?.member = member
            claims[sequence]?.session = session
            claims[sequence]?.deliveries += 1
            claims[sequence]?.leaseRunning = true
        }
        answer.events = picked.map { event($0, deliveries: claims[$0]?.deliveries ?? 0) }
        handed = fresh.last ?? head
        answer.othersHoldClaims = claims.values.contains { $0.member != nil && $0.member != member }
        return answer
    }
}
#endif
