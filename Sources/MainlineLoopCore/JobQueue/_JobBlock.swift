import Atomics
import Glibc

/// One block of a `_JobQueue`: ``capacity`` slots in a row, each on a cache line of its own with an atomic stamp, and
/// the link to the next block. Raw memory, so that producers and the loop reach a slot without reference counting.
///
/// Layout: the link (a `UInt` address, atomic) on the first cache line, then one 64-byte line per slot: the
/// ``_JobQueue/Slot``, after it its stamp (atomic), then the job's site (a `LoopSite`, plain stores). A line per slot because the loop reads the slot right behind
/// the one a producer is writing: sharing a line, the two would pull it back and forth on every post (measured: the
/// producer's publishing step was half of its time).
///
/// A slot belongs to the producer that reserved its position until the producer stamps it with the position plus one
/// (``stamp(for:)``), then to the loop. A block is reused at a later position, so an old stamp never matches: a reused
/// block needs no clearing, and the loop never writes to a slot's line (a producer that reuses the line finds it
/// shared, not taken). The link is written once, by the producer that filled the block's last slot, and read by the
/// loop.
package struct _JobBlock {
    /// Slots per block.
    package static let capacity = 255
    /// Positions per block: one more than its slots. The extra position (``capacity``) is where the tail rests while
    /// the producer that filled the last slot installs the next block; no job is ever there.
    package static let lap = capacity + 1

    private static let line = 64
    private static let stampOffset = MemoryLayout<_JobQueue.Slot>.stride
    /// Where a slot's site is, on its line: after the slot and its stamp.
    private static let siteOffset = stampOffset + MemoryLayout<UInt>.stride
    private static let byteCount = line + capacity * line

    package let base: UnsafeMutableRawPointer

    @inline(__always)
    package init(_ base: UnsafeMutableRawPointer) { self.base = base }

    /// A new block: no link, no stamp.
    package static func allocate() -> _JobBlock {
        precondition(
            stampOffset + MemoryLayout<UInt>.size <= line && stampOffset % MemoryLayout<UInt>.alignment == 0
                && siteOffset + MemoryLayout<LoopSite>.size <= line,
            "BUG DETECTED: a job slot, its stamp and its site no longer fit a cache line"
        )
        let block = _JobBlock(UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: line))
        block.base.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
        return block
    }

    /// Readies a block the loop has left for reuse: clears its link (its slots are empty, their stamps stale).
    package func reset() {
        link.store(0, ordering: .relaxed)
    }

    package func deallocate() { base.deallocate() }

    /// What the slot at `position` holds once its job is written.
    @inline(__always)
    package static func stamp(for position: UInt) -> UInt { position &+ 1 }

    /// The address of the next block, or 0 until it is installed.
    @inline(__always)
    package var link: UnsafeAtomic<UInt> {
        UnsafeAtomic(at: base.assumingMemoryBound(to: UInt.AtomicRepresentation.self))
    }

    /// The stamp of the slot at `offset`.
    @inline(__always)
    package func stamp(_ offset: Int) -> UnsafeAtomic<UInt> {
        UnsafeAtomic(
            at: (base + Self.line * (offset + 1) + Self.stampOffset).assumingMemoryBound(
                to: UInt.AtomicRepresentation.self
            )
        )
    }

    /// Writes the site of the slot at `offset` (its producer, before stamping it).
    @inline(__always)
    package func storeSite(_ site: LoopSite, _ offset: Int) {
        (base + Self.line * (offset + 1) + Self.siteOffset).storeBytes(of: site, as: LoopSite.self)
    }

    /// The site of the slot at `offset`: written by its producer before the stamp; never written again until the block
    /// is reused.
    @inline(__always)
    package func site(_ offset: Int) -> LoopSite {
        (base + Self.line * (offset + 1) + Self.siteOffset).load(as: LoopSite.self)
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
