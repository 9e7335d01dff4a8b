import Foundation
import _MainlineTestSupport

/// What the members of one group phase printed, as it arrives: each member's handled batches, whether it said
/// `ready`, and how it ended; and across both, which events were handled at least once.
///
/// All operations on `GroupTally` are thread-safe (protected by `lock`): each member's output is read on a thread of
/// its own, and the phase reads from the main actor.
final class GroupTally: @unchecked Sendable {
    private let lock = NSLock()
    /// Protected by `lock`. Per member: what it handled, in the order printed.
    private var batches: [[HandledBatch]]
    /// Protected by `lock`. Per member: whether it printed `ready`.
    private var ready: [Bool]
    /// Protected by `lock`. Per member: whether it printed `stalled` (stopped mid-work, to be killed).
    private var stalled: [Bool]
    /// Protected by `lock`. Per member: how it ended, once it did.
    private var ended: [ChildProcess.Result?]
    /// Protected by `lock`. `seen[i]`: whether event `i` was handled by any member.
    private var seen: [Bool]
    /// Protected by `lock`. Events handled at least once.
    private var distinct = 0
    /// Protected by `lock`. Lines that were neither `ready` nor a handled batch (resyncs, errors), per member.
    private var other: [[String]]

    /// Empty books for `members` members sharing `events` events.
    init(members: Int, events: Int) {
        batches = Array(repeating: [], count: members)
        ready = Array(repeating: false, count: members)
        stalled = Array(repeating: false, count: members)
        ended = Array(repeating: nil, count: members)
        other = Array(repeating: [], count: members)
        seen = Array(repeating: false, count: events)
    }

    /// Reads `child`'s standard output line by line into member `member`'s books until it ends, then reaps it; on a
    /// thread of its own.
    func follow(_ child: ChildProcess, member: Int) {
        Thread.detachNewThread {
            while let line = child.nextOutputLine() { self.record(line, member: member) }
            let result = child.finishBlocking()
            self.lock.withLock { self.ended[member] = result }
        }
    }

    /// Records one line member `member` printed.
    private func record(_ line: String, member: Int) {
        lock.withLock {
            if line == "ready" {
                ready[member] = true
            } else if line == "stalled" {
                stalled[member] = true
            } else if let batch = HandledBatch(line: line) {
                batches[member].append(batch)
                for index in batch.indices where seen.indices.contains(index) && !seen[index] {
                    seen[index] = true
                    distinct += 1
                }
            } else {
                other[member].append(line)
            }
        }
    }

    /// Whether every member printed `ready`.
    var allReady: Bool { lock.withLock { ready.allSatisfy { $0 } } }

    /// Whether member `member` printed `stalled`.
    func hasStalled(_ member: Int) -> Bool { lock.withLock { stalled[member] } }

    /// Events handled at least once so far.
    var handledDistinct: Int { lock.withLock { distinct } }

    /// Whether every member ended.
    var allEnded: Bool { lock.withLock { ended.allSatisfy { $0 != nil } } }

    /// Whether member `member` ended.
    func hasEnded(_ member: Int) -> Bool { lock.withLock { ended[member] != nil } }

    /// Everything recorded: per member, its batches, its other lines and how it ended.
    func snapshot() -> (batches: [[HandledBatch]], other: [[String]], ended: [ChildProcess.Result?]) {
        lock.withLock { (batches, other, ended) }
    }
}
