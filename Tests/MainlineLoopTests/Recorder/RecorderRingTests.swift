import Atomics
import Dispatch
import Foundation
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// The recorder's ring under a writer and readers on other threads: every record a reader keeps is whole.
@Suite("Recorder ring")
struct RecorderRingTests {
    /// The words of record number `n`: each a different function of `n`, so a record mixed from two writes shows.
    static func words(_ n: UInt64) -> (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) {
        (n &* 3, n &* 5, n &* 7, n &* 11, n &* 13, n &* 17)
    }

    @Test func aReaderNeverKeepsARecordMixedFromTwoWrites() {
        let ring = _RecorderRing(bytes: 64 * _RecorderRing.recordBytes)
        let written = ManagedAtomic<UInt64>(0)
        let done = ManagedAtomic(false)
        let torn = ManagedAtomic(0)
        let kept = ManagedAtomic(0)
        let burners = (0..<2).map { _ in Thread { while !done.load(ordering: .relaxed) {} } }
        burners.forEach { $0.start() }

        // Reader threads (not tasks: they spin, and the cooperative pool has as many threads as cores), each reading
        // at least once after the writer began; the writer waits for both to be running.
        let readersRunning = ManagedAtomic(0)
        let readersDone = DispatchSemaphore(value: 0)
        for _ in 0..<2 {
            Thread {
                readersRunning.wrappingIncrement(ordering: .relaxed)
                repeat {
                    for record in ring.read() {
                        let expected = Self.words(record.number)
                        if record.time != record.number || record.payload != expected {
                            torn.wrappingIncrement(ordering: .relaxed)
                        }
                        kept.wrappingIncrement(ordering: .relaxed)
                    }
                } while !done.load(ordering: .relaxed)
                readersDone.signal()
            }.start()
        }
        while readersRunning.load(ordering: .relaxed) < 2 { sched_yield() }
        // The one writer, as the loop is: a million records through a ring of 64.
        for n in UInt64(0)..<1_000_000 {
            let w = Self.words(n)
            ring.write(time: n, w.0, w.1, w.2, w.3, w.4, w.5)
            written.store(n, ordering: .relaxed)
        }
        done.store(true, ordering: .relaxed)
        readersDone.wait()
        readersDone.wait()

        #expect(torn.load(ordering: .relaxed) == 0)
        #expect(kept.load(ordering: .relaxed) > 0)
        // Never more than the ring's records, the latest ones, oldest first.
        let last = ring.read()
        #expect(last.count == 64)
        #expect(last.map(\.number) == Array(UInt64(1_000_000 - 64)..<1_000_000))
    }
}
