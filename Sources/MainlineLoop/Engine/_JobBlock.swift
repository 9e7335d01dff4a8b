import Atomics
import Glibc

/// One block of a `_JobQueue`: ``capacity`` slots in a row, each on a cache line of its own with an atomic state byte,
/// and the link to the next block. Raw memory, so that producers and the loop reach a slot without reference counting.
///
/// Layout: the link (a `UInt` address, atomic) on the first cache line, then one 64-byte line per slot: the
/// ``_JobQueue/Slot`` and, after it, its state byte (atomic). A line per slot because the loop reads the slot right
/// behind the one a producer is writing: sharing a line, the two would pull it back and forth on every post
/// (measured: the producer's publishing step was half of its time).
/// A slot belongs to the producer that reserved its position until the producer sets ``written``, then to the loop.
/// The link is written once, by the producer that filled the block's last slot, and read by the loop.
package struct _JobBlock {
    /// Slots per block.
    package static let capacity = 255
    /// Positions per block: one more than its slots. The extra position (``capacity``) is where the tail rests while
    /// the producer that filled the last slot installs the next block; no job is ever there.
    package static let lap = capacity + 1

    /// In a slot's state: the job is written (set by its producer, after the slot).
    package static let written: UInt8 = 1
    /// In a slot's state: the loop found the queue empty here and sleeps; the producer that writes this slot wakes it.
    package static let loopWaits: UInt8 = 2

    private static let line = 64
    private static let stateOffset = MemoryLayout<_JobQueue.Slot>.stride
    private static let byteCount = line + capacity * line

    package let base: UnsafeMutableRawPointer

    @inline(__always)
    package init(_ base: UnsafeMutableRawPointer) { self.base = base }

    /// A new block: no link, every state zero.
    package static func allocate() -> _JobBlock {
        precondition(stateOffset < line, "BUG DETECTED: a job slot and its state no longer fit a cache line")
        let block = _JobBlock(UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: line))
        block.base.storeBytes(of: 0, as: UInt.self)
        block.reset()
        return block
    }

    /// Makes a used block new again (its slots must be empty: moved out or never written).
    package func reset() {
        link.store(0, ordering: .relaxed)
        for offset in 0..<Self.capacity {
            (base + Self.line * (offset + 1) + Self.stateOffset).storeBytes(of: 0, as: UInt8.self)
        }
    }

    package func deallocate() { base.deallocate() }

    /// The address of the next block, or 0 until it is installed.
    @inline(__always)
    package var link: UnsafeAtomic<UInt> {
        UnsafeAtomic(at: base.assumingMemoryBound(to: UInt.AtomicRepresentation.self))
    }

    /// The state of the slot at `offset`.
    @inline(__always)
    package func state(_ offset: Int) -> UnsafeAtomic<UInt8> {
        UnsafeAtomic(
            at: (base + Self.line * (offset + 1) + Self.stateOffset)
                .assumingMemoryBound(to: UInt8.AtomicRepresentation.self)
        )
    }

    /// The slot at `offset`.
    @inline(__always)
    package func slot(_ offset: Int) -> UnsafeMutablePointer<_JobQueue.Slot> {
        (base + Self.line * (offset + 1)).assumingMemoryBound(to: _JobQueue.Slot.self)
    }

    /// The next block, waiting for the producer that filled this one to link it (it does so right after it moved the
    /// tail past this block: a few instructions, unless it is preempted).
    package func awaitNext() -> _JobBlock {
        while true {
            let next = link.load(ordering: .acquiring)
            if next != 0 { return _JobBlock(UnsafeMutableRawPointer(bitPattern: next)!) }
            sched_yield()
        }
    }
}

/// Slots counted up to a position (positions include one per lap where no slot is).
@inline(__always)
package func _jobSlots(before position: UInt) -> Int {
    let lap = UInt(_JobBlock.lap)
    return Int(position / lap) * _JobBlock.capacity + Int(min(position % lap, UInt(_JobBlock.capacity)))
}
