import CMainlineShims

/// One cell of a `_JobQueue`: a C node (`mainline_job_node`, recycled per thread by `job_nodes.c`) whose payload holds
/// a ``_JobQueue/Slot``.
///
/// Not thread-safe by itself: a node belongs to one thread at a time — the producer that took it until its push, the
/// queue until a take, then the loop that took it until it gives it back.
package typealias _JobNode = UnsafeMutablePointer<mainline_job_node>

extension UnsafeMutablePointer where Pointee == mainline_job_node {
    /// A node from the calling thread's cache, holding `slot`.
    @inline(__always)
    static func taking(holding slot: _JobQueue.Slot) -> _JobNode {
        let node = mainline_job_node_take()!
        node.slot.initialize(to: slot)
        return node
    }

    /// The slot in the node's payload (initialised from ``taking(holding:)`` until ``giveBack()``).
    @inline(__always)
    var slot: UnsafeMutablePointer<_JobQueue.Slot> {
        // The payload follows the link (`_JobQueue.Slot.fitsANode` checks the offset once).
        UnsafeMutableRawPointer(self).advanced(by: MemoryLayout<UnsafeMutableRawPointer>.stride)
            .assumingMemoryBound(to: _JobQueue.Slot.self)
    }

    /// Moves the slot out and gives the node back to the calling thread's cache.
    @inline(__always)
    func giveBack() -> _JobQueue.Slot {
        let slot = self.slot.move()
        mainline_job_node_give(self)
        return slot
    }

    /// The next node of a chain (older in a queue's stack, later in a loop's batch).
    @inline(__always)
    var following: _JobNode? {
        get { pointee.next }
        nonmutating set { pointee.next = newValue }
    }

    /// Reverses the chain that starts here (a stack's newest-first order into running order), counting it.
    ///
    /// - Returns: The first and last node in running order and how many there are.
    static func reversing(_ newestFirst: _JobNode) -> (first: _JobNode, last: _JobNode, count: Int) {
        var reversed: _JobNode? = nil
        var node: _JobNode? = newestFirst
        var count = 0
        while let current = node {
            node = current.following
            current.following = reversed
            reversed = current
            count += 1
        }
        return (reversed!, newestFirst, count)
    }
}

extension _JobQueue.Slot {
    /// Whether a slot of this layout fits a node's payload: checked once, when the first queue is created.
    static let fitsANode: Bool =
        MemoryLayout<mainline_job_node>.offset(of: \.payload) == MemoryLayout<UnsafeMutableRawPointer>.stride
        && MemoryLayout<_JobQueue.Slot>.size <= MemoryLayout<(UInt64, UInt64, UInt64)>.size
        && MemoryLayout<_JobQueue.Slot>.alignment <= MemoryLayout<UInt64>.alignment
}
