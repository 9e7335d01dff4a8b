import Atomics

/// The flight recorder's memory: a fixed number of 64-byte records in a ring, written by the loop alone and read by
/// any thread without stopping it.
///
/// ``write(time:_:_:_:_:_:_:)`` must be called only where the loop runs (one writer); ``read()`` is thread-safe.
///
/// **A sequence lock per record.** Word 0 of a record holds its sequence: odd while the loop writes it, `2 × (n + 1)`
/// once record number `n` is complete. A reader loads the sequence, the words, then the sequence again, and keeps the
/// record only if both loads match and are even — a record the loop overwrote meanwhile is skipped, never torn. Every
/// word is an atomic (relaxed, with a release fence after the odd store and an acquire fence before the second load),
/// so ThreadSanitizer sees no race and a reader never blocks the loop. The ring never grows: record `n` replaces
/// record `n - capacity`.
package final class _RecorderRing: @unchecked Sendable {
    // @unchecked Sendable: `words` is allocated in `init` and freed in `deinit`; every access in between is atomic.
    // `next` is touched only by the writer (the loop).

    /// Words per record: the sequence, the time, and six of payload.
    static let wordsPerRecord = 8
    static let recordBytes = wordsPerRecord * MemoryLayout<UInt64>.size

    /// How many records the ring holds.
    package let capacity: Int
    private let words: UnsafeMutablePointer<UInt64.AtomicRepresentation>
    /// The number of the next record to write. Loop only.
    private var next: UInt64 = 0

    /// A ring of `bytes` (at least 64 records' worth).
    init(bytes: Int) {
        capacity = max(64, bytes / Self.recordBytes)
        words = .allocate(capacity: capacity * Self.wordsPerRecord)
        words.initialize(repeating: UInt64.AtomicRepresentation(0), count: capacity * Self.wordsPerRecord)
    }

    deinit {
        words.deinitialize(count: capacity * Self.wordsPerRecord)
        words.deallocate()
    }

    @inline(__always)
    private func word(_ record: Int, _ index: Int) -> UnsafeAtomic<UInt64> {
        UnsafeAtomic(at: words + record * Self.wordsPerRecord + index)
    }

    /// Writes the next record. Loop only.
    package func write(time: UInt64, _ w2: UInt64, _ w3: UInt64, _ w4: UInt64, _ w5: UInt64, _ w6: UInt64, _ w7: UInt64)
    {
        let number = next
        next &+= 1
        let record = Int(number % UInt64(capacity))
        let sequence = word(record, 0)
        sequence.store((number &+ 1) << 1 | 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        word(record, 1).store(time, ordering: .relaxed)
        word(record, 2).store(w2, ordering: .relaxed)
        word(record, 3).store(w3, ordering: .relaxed)
        word(record, 4).store(w4, ordering: .relaxed)
        word(record, 5).store(w5, ordering: .relaxed)
        word(record, 6).store(w6, ordering: .relaxed)
        word(record, 7).store(w7, ordering: .relaxed)
        sequence.store((number &+ 1) << 1, ordering: .releasing)
    }

    /// One complete record: its number (in writing order), its time, and its six payload words.
    package struct Record {
        package var number: UInt64
        package var time: UInt64
        var payload: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    }

    /// Every complete record the ring holds, oldest first. Thread-safe; never blocks the writer (a record it rewrites
    /// while this reads is left out).
    package func read() -> [Record] {
        var records: [Record] = []
        records.reserveCapacity(capacity)
        for record in 0..<capacity {
            let sequence = word(record, 0)
            let before = sequence.load(ordering: .acquiring)
            guard before != 0, before & 1 == 0 else { continue }
            let time = word(record, 1).load(ordering: .relaxed)
            let payload = (
                word(record, 2).load(ordering: .relaxed), word(record, 3).load(ordering: .relaxed),
                word(record, 4).load(ordering: .relaxed), word(record, 5).load(ordering: .relaxed),
                word(record, 6).load(ordering: .relaxed), word(record, 7).load(ordering: .relaxed)
            )
            atomicMemoryFence(ordering: .acquiring)
            guard sequence.load(ordering: .relaxed) == before else { continue }
            records.append(Record(number: (before >> 1) &- 1, time: time, payload: payload))
        }
        records.sort { $0.number < $1.number }
        return records
    }
}
