/// A first-in, first-out buffer of fixed capacity: the storage of ``BoundedMailbox``.
///
/// A value type with no synchronisation of its own; the mailbox guards it with its lock.
@usableFromInline
struct _Ring<Element> {
    @usableFromInline var slots: ContiguousArray<Element?>
    @usableFromInline var head = 0
    @usableFromInline var count = 0

    @usableFromInline
    init(capacity: Int) {
        slots = ContiguousArray(repeating: nil, count: capacity)
    }

    @inlinable var capacity: Int { slots.count }
    @inlinable var isFull: Bool { count == slots.count }

    /// Appends `element`; the ring must not be full.
    @inlinable
    mutating func append(_ element: Element) {
        precondition(!isFull, "BUG DETECTED: append to a full ring")
        slots[(head + count) % slots.count] = element
        count += 1
    }

    /// Removes and returns the oldest element.
    @inlinable
    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head]
        slots[head] = nil
        head = (head + 1) % slots.count
        count -= 1
        return element
    }

    /// Removes and returns every element, oldest first, in one pass (the mailbox's lock is held meanwhile).
    @inlinable
    mutating func removeAll() -> [Element] {
        var elements: [Element] = []
        elements.reserveCapacity(count)
        var index = head
        for _ in 0..<count {
            elements.append(slots[index].take()!)
            index += 1
            if index == slots.count { index = 0 }
        }
        head = 0
        count = 0
        return elements
    }
}
