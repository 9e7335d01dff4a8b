/// The storage of ``BoundedMailbox``: the values that wait for the consumer, and the senders that wait for room.
///
/// A value type with no synchronisation of its own; the mailbox guards it (and its counts) with its store's lock.
///
/// **Invariant:** senders wait only while the ring is full. A sender waits only when it finds the ring full; every
/// take that frees a slot hands it at once, under the same lock, to the oldest waiter (``handRoom(counts:)``); and
/// `place(_:)` on a full ring refuses. So no value placed or sent later can overtake a waiting sender, and a sender
/// that finds room need not look at the queue.
@usableFromInline
struct _BoundedStorage<Value> {
    @usableFromInline var ring: _Ring<Value>
    @usableFromInline var waiters = _SendWaiters<Value>()

    @usableFromInline
    init(capacity: Int) {
        ring = _Ring(capacity: capacity)
    }

    /// Moves the values of the oldest waiters into the free slots, counting each as accepted, and hands back their
    /// continuations, oldest first, to be resumed once the lock is released. Empty (and allocation-free) when nobody
    /// waits.
    @inlinable
    mutating func handRoom(counts: inout MailboxCounts) -> ContiguousArray<CheckedContinuation<Void, any Error>> {
        var resumed: ContiguousArray<CheckedContinuation<Void, any Error>> = []
        while !ring.isFull, let waiter = waiters.popFirst() {
            ring.append(waiter.value)
            counts.accepted += 1
            counts.waiting -= 1
            resumed.append(waiter.continuation)
        }
        return resumed
    }

    /// One slot was freed: moves the oldest waiter's value into it, and hands back its continuation to resume once the
    /// lock is released.
    @inlinable
    mutating func handOneSlot(counts: inout MailboxCounts) -> CheckedContinuation<Void, any Error>? {
        guard !ring.isFull, let waiter = waiters.popFirst() else { return nil }
        ring.append(waiter.value)
        counts.accepted += 1
        counts.waiting -= 1
        return waiter.continuation
    }
}
