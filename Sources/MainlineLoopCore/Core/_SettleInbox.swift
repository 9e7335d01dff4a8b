import Atomics

/// Settle requests made from any thread, waiting for the loop's next settle phase: what lets a lazy trigger or a
/// mailbox on a worker thread reach the settle queue without posting a job.
///
/// ``push(_:)``, ``hasRequests`` and ``close()`` are thread-safe; ``takeAll()`` must be called where the loop runs.
///
/// A lock-free stack (Treiber): a request is one node and **one compare-and-swap** on `head`; the loop takes the
/// whole stack with one exchange and reverses it, so requests are resolved in the order they were pushed. Only the
/// loop takes and nothing is popped one at a time, so the stack has no ABA problem. `push` and the load in
/// ``hasRequests`` are sequentially consistent: with the job queue's sleeping bit (set by a sequentially consistent
/// compare-and-swap before the loop looks here) they make the handshake that never loses a wake-up — the loop either
/// sees the request before it blocks, or the producer sees the bit and wakes it (see `_LoopCore.requestSettle(fromAnyThread:)`).
package final class _SettleInbox: Sendable {
    /// One request on the stack.
    private final class Node {
        let request: any SettleRequest
        /// The node pushed before this one, as an address: linking must not touch that node's reference count, because
        /// until the exchange succeeds the loop may be taking (and freeing) it. Each node's one retain is the
        /// stack's, held by `head` or by the `next` of the node above it.
        var next: UInt = 0

        init(_ request: any SettleRequest) {
            self.request = request
        }
    }

    /// The top of the stack (retained once by the stack); ``closed`` once the loop has shut down.
    private let head = ManagedAtomic<UInt>(0)
    /// `head`'s value after ``close()``: no node lives at address 1.
    private static let closed: UInt = 1

    init() {}

    deinit {
        _ = take(replacingWith: Self.closed)
    }

    /// Pushes `request`. Thread-safe. Returns `false` once the inbox is closed (the loop has shut down).
    func push(_ request: any SettleRequest) -> Bool {
        let node = Unmanaged.passRetained(Node(request))
        var top = head.load(ordering: .relaxed)
        while true {
            if top == Self.closed {
                node.release()
                return false
            }
            // Not yet shared: no other thread can see `next` until the exchange publishes the node.
            node.takeUnretainedValue().next = top
            let (exchanged, found) = head.weakCompareExchange(
                expected: top,
                desired: UInt(bitPattern: node.toOpaque()),
                successOrdering: .sequentiallyConsistent,
                failureOrdering: .relaxed
            )
            // The stack's retain of the node below passes from `head` to this node's `next`.
            if exchanged { return true }
            top = found
        }
    }

    /// Whether requests wait. Thread-safe; sequentially consistent (see the type's comment).
    var hasRequests: Bool {
        let top = head.load(ordering: .sequentiallyConsistent)
        return top != 0 && top != Self.closed
    }

    /// Takes every request, in the order they were pushed. Call it where the loop runs.
    func takeAll() -> [any SettleRequest] {
        guard hasRequests else { return [] }
        return take(replacingWith: 0)
    }

    /// Takes every request and refuses new ones (the loop has shut down). Thread-safe.
    package func close() -> [any SettleRequest] {
        take(replacingWith: Self.closed)
    }

    private func take(replacingWith replacement: UInt) -> [any SettleRequest] {
        let top = head.exchange(replacement, ordering: .sequentiallyConsistent)
        var requests: [any SettleRequest] = []
        var address = top
        while let node = Self.node(at: address) {
            // Takes the stack's retain: the node is freed once its request has been read.
            let current = node.takeRetainedValue()
            requests.append(current.request)
            address = current.next
        }
        return requests.reversed()
    }

    private static func node(at address: UInt) -> Unmanaged<Node>? {
        guard address != 0, address != closed, let pointer = UnsafeRawPointer(bitPattern: address) else { return nil }
        return Unmanaged.fromOpaque(pointer)
    }
}
