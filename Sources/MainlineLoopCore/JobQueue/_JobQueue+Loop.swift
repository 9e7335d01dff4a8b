import Atomics
import Glibc

/// Where a loop reads its `_JobQueue`: the block and position of the next job, and the end of the batch it took.
///
/// Not thread-safe: touched only where the loop runs (the main actor, or an `EventLoop`'s thread), through the
/// queue's loop side below.
package struct _JobCursor {
    /// The block ``position`` is in.
    var block: _JobBlock
    /// The next position to read.
    var position: UInt = 0
    /// The end of the batch taken by the last refill: positions before it run in this and later phases, positions
    /// after it were reserved behind the batch and wait for the next refill.
    package var end: UInt = 0
}

/// The loop's side of the job queue. Not thread-safe: call it only where the loop runs.
///
/// A post phase refills the batch when the previous one has run completely (``refillIfDone()``: everything reserved
/// so far), runs at most one budget of it (``next()``), then ends (``endPhase()`` or ``afterPhase()``). What the
/// budget leaves waits for the loop's next post phase, so every job posted from one thread runs in posting order, and
/// work posted during a phase runs in a later one. Right before it blocks, the loop calls ``prepareToSleep()``, which
/// is how producers learn that the next post must wake it.
extension _JobQueue {
    /// Whether every job of the batch has run (or was released).
    @inline(__always)
    package var batchIsDone: Bool { loop.pointee.position == loop.pointee.end }

    /// Jobs of the batch not yet run or released.
    package var batchRemaining: Int { _jobSlots(before: loop.pointee.end) - _jobSlots(before: loop.pointee.position) }

    /// Jobs accepted and not yet run, exactly (a job that is running is no longer pending).
    package var pendingOnLoop: Int {
        _jobSlots(before: tail.load(ordering: .acquiring) >> Self.shift) - _jobSlots(before: loop.pointee.position)
    }

    /// When the batch has run completely, takes everything reserved so far as the next batch. Does nothing while jobs
    /// of the previous batch remain. (A drain deadline is the scheduler's business: it reads ``closingDeadline`` once,
    /// in the first post phase after the close — not at a refill, which may be budgets away.)
    @inline(__always)
    package func refillIfDone() {
        guard batchIsDone else { return }
        loop.pointee.end = tail.load(ordering: .acquiring) >> Self.shift
    }

    /// The next job of the batch, moved out of its slot (so it is released as soon as the caller is done with it);
    /// `nil` when the batch is done — or when its next slot is reserved but not yet written: the phase stops there, and
    /// ``hasIncoming`` stays `true`, so the loop comes round for it. Skips jobs released at a drain deadline.
    ///
    /// The slot's site stays readable (``siteBehind(_:)``) until the loop leaves the block.
    @inline(__always)
    package func next() -> (job: Job, site: LoopSite)? {
        let cursor = loop
        while cursor.pointee.position != cursor.pointee.end {
            let offset = Int(cursor.pointee.position % UInt(_JobBlock.lap))
            if offset == _JobBlock.capacity {
                moveToNextBlock()
                continue
            }
            let block = cursor.pointee.block
            guard block.stamp(offset).load(ordering: .acquiring) == _JobBlock.stamp(for: cursor.pointee.position) else {
                return nil
            }
            // The whole slot is moved out: a read, no write (the loop never writes to a slot's line), and the job stays
            // at its concrete abstraction level (a `Job?` read through a pointer to it would cost a reabstraction
            // thunk: an allocation per job; see `Slot`). The slot's bytes are left as they were, so its site — a
            // trivial value — still reads back from memory (`siteBehind(_:)`) until a producer reuses the block.
            // The slot is moved out (a read, no write: the loop never writes to a slot's line); its site, beside it on
            // the line, stays readable (`siteBehind(_:)`) until a producer reuses the block.
            let slot = block.slot(offset).move()
            cursor.pointee.position &+= 1
            if let job = slot.job { return (job, block.site(offset)) }
        }
        return nil
    }

    /// How many jobs the loop has read from its current block: the sites ``siteBehind(_:)`` can still read.
    @inline(__always)
    package var readInCurrentBlock: Int { Int(loop.pointee.position % UInt(_JobBlock.lap)) }

    /// The site of the job `distance` positions behind the loop's read position (1: the job read last), in the
    /// current block; `distance` must be at most ``readInCurrentBlock``. No producer writes a slot of the current block
    /// behind the loop's position: a block is reused only once the loop has left it.
    package func siteBehind(_ distance: Int) -> LoopSite {
        let offset = Int(loop.pointee.position % UInt(_JobBlock.lap)) - distance
        precondition(offset >= 0 && distance > 0, "BUG DETECTED: a site behind the loop outside its current block")
        return loop.pointee.block.site(offset)
    }

    /// The sites of the jobs waiting to run, in posting order, at most `limit` of them (for a snapshot). Reads only
    /// slots already written (their stamps say so), so it never waits for a producer; stops at the first that is not.
    package func waitingSites(limit: Int) -> [LoopSite] {
        var sites: [LoopSite] = []
        var block = loop.pointee.block
        var position = loop.pointee.position
        let end = tail.load(ordering: .acquiring) >> Self.shift
        while position != end, sites.count < limit {
            let offset = Int(position % UInt(_JobBlock.lap))
            if offset == _JobBlock.capacity {
                let next = block.link.load(ordering: .acquiring)
                guard next != 0 else { break }
                block = _JobBlock(UnsafeMutableRawPointer(bitPattern: next)!)
                position &+= 1
                continue
            }
            guard block.stamp(offset).load(ordering: .acquiring) == _JobBlock.stamp(for: position) else { break }
            sites.append(block.site(offset))
            position &+= 1
        }
        return sites
    }

    /// Leaves a block whose slots have all been read for the next one, and hands the old one back for reuse.
    @inline(never)
    private func moveToNextBlock() {
        let old = loop.pointee.block
        loop.pointee.block = old.awaitNext()
        loop.pointee.position &+= 1
        // Every slot of `old` is written and read, and its link is set: no producer touches it again.
        old.reset()
        putSpare(old)
    }

    /// Ends a post phase: publishes what has run, for the limit and the counts.
    package func endPhase() {
        head.store(_jobSlots(before: loop.pointee.position), ordering: .releasing)
    }

    /// The loop is about to block: unless a job is waiting, sets the sleeping bit, so that the next producer wakes the
    /// loop. Returns `false` when a job is waiting (or the batch is not done): then the loop must not block.
    ///
    /// Called right before the poll, not at the end of the post phase: while the loop is awake (running timers,
    /// settle, I/O), a producer finds no bit and pays no wake-up.
    package func prepareToSleep() -> Bool {
        let cursor = loop
        guard cursor.pointee.position == cursor.pointee.end else { return false }
        while true {
            if cursor.pointee.position % UInt(_JobBlock.lap) == UInt(_JobBlock.capacity) {
                // At a block's extra position: the next job goes to the next block's first slot, which the producer
                // that filled this block is installing (or has). Move there first. (Comparing positions here would
                // miss it: the tail may already be one past, with no job between.)
                moveToNextBlock()
                cursor.pointee.end = cursor.pointee.position
                continue
            }
            let word = tail.load(ordering: .acquiring)
            guard word >> Self.shift == cursor.pointee.position else { return false }
            if word & Self.sleepingBit != 0 { return true }
            // Fails when a producer reserved meanwhile (or the state changed): look again.
            // Sequentially consistent: what the loop reads after this (a settle inbox, `_SettleInbox`) cannot be read
            // before the bit is visible, so a producer that pushed there either is seen or sees the bit and wakes.
            if tail.compareExchange(expected: word, desired: word | Self.sleepingBit, ordering: .sequentiallyConsistent)
                .exchanged
            {
                return true
            }
        }
    }

    /// What the loop does after a post phase.
    package enum AfterPhase {
        /// Jobs are still waiting: the loop must arrange its next post phase itself.
        case moreWaiting
        /// Nothing is waiting and the queue is open: the loop may block.
        case idle
        /// Nothing is waiting and the queue was draining: it is now closed, the loop shuts down.
        case closed
    }

    /// Ends a post phase (``endPhase()``) and decides, in one atomic step, what follows it. Closing here is the last
    /// word: from then on nothing is accepted.
    package func afterPhase() -> AfterPhase {
        endPhase()
        guard batchIsDone else { return .moreWaiting }
        var word = tail.load(ordering: .acquiring)
        while true {
            if word >> Self.shift != loop.pointee.position { return .moreWaiting }
            if word & Self.closedBit != 0 { return .closed }
            if word & Self.drainingBit == 0 { return .idle }
            let (exchanged, found) = tail.compareExchange(
                expected: word,
                desired: word | Self.closedBit,
                ordering: .acquiringAndReleasing
            )
            if exchanged { return .closed }
            word = found
        }
    }

    /// Releases, unrun, every posted closure accepted and not yet run — in the batch and behind it — (executor jobs
    /// stay, to run in order); returns how many were released. For a drain deadline.
    package func releasePostsUnrun() -> Int {
        var released = 0
        var block = loop.pointee.block
        var position = loop.pointee.position
        let end = tail.load(ordering: .acquiring) >> Self.shift
        while position != end {
            let offset = Int(position % UInt(_JobBlock.lap))
            if offset == _JobBlock.capacity {
                block = block.awaitNext()
            } else {
                Self.awaitWritten(block, offset, position)
                let slot = block.slot(offset)
                if slot.pointee.isPost, slot.pointee.job != nil {
                    slot.pointee.job = nil
                    released += 1
                }
            }
            position &+= 1
        }
        return released
    }

    /// Releases every job of the batch not yet run and empties the batch; returns how many were released.
    package func releaseBatch() -> Int {
        let released = releaseTaken(upTo: loop.pointee.end)
        head.store(_jobSlots(before: loop.pointee.position), ordering: .releasing)
        return released
    }

    /// Refuses everything from now on (shutdown) and makes whatever was accepted before the batch, for the caller to
    /// run or release. Call it when the batch is done.
    package func closeForGood() {
        precondition(batchIsDone, "BUG DETECTED: the batch must be done before the last take")
        let word = tail.loadThenBitwiseOr(with: Self.closedBit, ordering: .acquiringAndReleasing)
        loop.pointee.end = word >> Self.shift
    }

    /// Reads and releases every job from the loop's position up to `end`, waiting for slots still being written.
    func releaseTaken(upTo end: UInt) -> Int {
        var released = 0
        let cursor = loop
        while cursor.pointee.position != end {
            let offset = Int(cursor.pointee.position % UInt(_JobBlock.lap))
            if offset == _JobBlock.capacity {
                moveToNextBlock()
                continue
            }
            Self.awaitWritten(cursor.pointee.block, offset, cursor.pointee.position)
            if cursor.pointee.block.slot(offset).move().job != nil { released += 1 }
            cursor.pointee.position &+= 1
        }
        cursor.pointee.end = max(cursor.pointee.end, end)
        return released
    }

    /// Waits for the producer that reserved a slot to finish writing it (a few instructions, unless it is preempted).
    private static func awaitWritten(_ block: _JobBlock, _ offset: Int, _ position: UInt) {
        while block.stamp(offset).load(ordering: .acquiring) != _JobBlock.stamp(for: position) { sched_yield() }
    }
}
