/// A first-in, first-out buffer of fixed capacity: the storage of ``BoundedMailbox``.
///
/// A value type with no synchronisation of its own; the mailbox guards it with its lock.
struct _Ring<Element> {
    private var slots: ContiguousArray<Element?>
    private var head = 0
    private(set) var count = 0

    init(capacity: Int) {
        slots = ContiguousArray(repeating: nil, count: capacity)
    }

    var capacity: Int { slots.count }
    var isFull: Bool { count == slots.count }

    /// Appends `element`; the ring must not be full.
    mutating func append(_ element: Element) {
        precondition(!isFull, "BUG DETECTED: append to a full ring")
        slots[(head + count) % slots.count] = element
        count += 1
    }

    /// Removes and returns the oldest element.
    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head]
        slots[head] = nil
        head = (head + 1) % slots.count
        count -= 1
        return element
    }

    /// Removes and returns every element, oldest first.
    mutating func removeAll() -> [Element] {
        var elements: [Element] = []
        elements.reserveCapacity(count)
        while let element = popFirst() { elements.append(element) }
        return elements
    }
}
