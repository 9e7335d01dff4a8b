/// The senders waiting in `BoundedMailbox.send(_:)` for room, oldest first, with the values they carry: the second
/// half of ``_BoundedStorage``.
///
/// A value type with no synchronisation of its own; the mailbox guards it with its lock. Its methods change the queue
/// only: the continuations they hand back are resumed by the caller *after* it released the lock (a resumed task may
/// run at once on another thread and send again).
///
/// Waiting is first in, first out: `append` adds at the end, `popFirst` takes from the front. A cancelled sender
/// leaves from the middle (`remove(ticket:)`, a linear search: cancellation is the rare path, and the queue holds at
/// most one entry per task).
@usableFromInline
struct _SendWaiters<Value> {
    /// One waiting sender: the ticket its cancellation handler knows it by, its value, and its task's continuation.
    @usableFromInline
    struct Waiter {
        @usableFromInline let ticket: UInt64
        @usableFromInline let value: Value
        @usableFromInline let continuation: CheckedContinuation<Void, any Error>
    }

    /// The waiters; `entries[head...]` are waiting, oldest first. The slots before `head` were taken and are reused
    /// once the queue is empty (or compacted when they are more than half of it), so a steady stream of waiters costs
    /// no allocation.
    @usableFromInline var entries: ContiguousArray<Waiter> = []
    @usableFromInline var head = 0
    /// The last ticket handed out; 0 is never a ticket.
    @usableFromInline var lastTicket: UInt64 = 0
    /// Set when the loop stopped: nobody will take values again, so senders stop waiting (they throw `LoopStopped`).
    @usableFromInline var isClosed = false
    /// Tests only: called, outside the lock, with the number of waiting senders each time a sender starts waiting.
    @usableFromInline var didStartWaiting: (@Sendable (Int) -> Void)?

    @usableFromInline
    init() {}

    /// How many senders wait.
    @inlinable var count: Int { entries.count - head }
    @inlinable var isEmpty: Bool { head == entries.count }

    /// A new ticket, for a sender about to wait.
    @inlinable
    mutating func nextTicket() -> UInt64 {
        lastTicket &+= 1
        return lastTicket
    }

    /// Adds a waiter at the end.
    mutating func append(_ waiter: Waiter) {
        entries.append(waiter)
    }

    /// Removes and returns the oldest waiter.
    @inlinable
    mutating func popFirst() -> Waiter? {
        guard head < entries.count else { return nil }
        let waiter = entries[head]
        head += 1
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 32 && head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
        return waiter
    }

    /// Removes the waiter holding `ticket`, if it still waits (it may have been handed room, or not registered yet).
    mutating func remove(ticket: UInt64) -> Waiter? {
        guard let index = entries[head...].firstIndex(where: { $0.ticket == ticket }) else { return nil }
        return entries.remove(at: index)
    }

    /// Removes every waiter, oldest first.
    mutating func removeAll() -> ContiguousArray<Waiter> {
        let waiting = ContiguousArray(entries[head...])
        entries = []
        head = 0
        return waiting
    }
}
