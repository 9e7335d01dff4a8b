import Atomics
import Dispatch
import Foundation
import Glibc
import MainlineLoop
import Testing

/// The recorder read from other threads while a real loop writes it: a reader never sees a torn record and never
/// stops the loop. Under load (two spinning threads beside the loop and the readers), many rounds.
@Suite("Flight recorder, read while the loop writes")
struct FlightRecorderConcurrencyTests {
    /// Spins for `microseconds` of real time: slow work the recorder must see.
    @inline(never)
    static func spin(microseconds: UInt64) {
        let end = DispatchTime.now().uptimeNanoseconds + microseconds * 1_000
        while DispatchTime.now().uptimeNanoseconds < end {}
    }

    /// The two sites the jobs come from.
    static let siteA = LoopSite(label: "a", fileID: "Race/A.swift", line: 1)
    static let siteB = LoopSite(label: "b", fileID: "Race/B.swift", line: 2)

    @Test func readersNeverSeeATornRecordWhileTheLoopWrites() async throws {
        let loop = EventLoop(name: "recorder-race")
        // A small ring (64 records) and a 1 µs threshold: every job is slow, and the ring wraps constantly.
        loop.flightRecorder.settings = .init(capacityBytes: 4_096, slowWorkThreshold: .microseconds(1))
        let stop = ManagedAtomic(false)
        let burners = (0..<2).map { _ in
            Thread { while !stop.load(ordering: .relaxed) {} }
        }
        burners.forEach { $0.start() }
        defer { stop.store(true, ordering: .relaxed) }

        // Two reader threads (not tasks: a reader spins, and the cooperative pool has as many threads as cores),
        // reading until the loop has run everything, at least once each: each read is checked record by record.
        let posted = 20_000
        let ran = ManagedAtomic(0)
        let reads = ManagedAtomic(0)
        let bad = ManagedAtomic(0)
        let lines = ManagedAtomic(0)
        let readersDone = DispatchSemaphore(value: 0)
        for _ in 0..<2 {
            Thread {
                repeat {
                    let events = loop.flightRecorder.events()
                    // Read after the events: the lines were stored before the first post those events came from.
                    let known = lines.load(ordering: .acquiring)
                    for event in events {
                        guard case .slowWork(let work) = event.kind else { continue }
                        let site = work.site
                        if known == 0 || site != Self.siteA && site != Self.siteB || work.kind != .post
                            || work.duration < .microseconds(1) || work.runLength < 1
                        {
                            bad.wrappingIncrement(ordering: .relaxed)
                        }
                    }
                    reads.wrappingIncrement(ordering: .relaxed)
                } while ran.load(ordering: .relaxed) < posted
                readersDone.signal()
            }.start()
        }
        // Jobs from two known lines, 2–9 µs each.
        lines.store(1, ordering: .releasing)
        for index in 0..<posted / 2 {
            let spinA = UInt64(2 + index % 4)
            let spinB = UInt64(2 + index % 8)
            loop.post(
                {
                    Self.spin(microseconds: spinA); ran.wrappingIncrement(ordering: .relaxed)
                },
                from: Self.siteA
            )
            loop.post(
                {
                    Self.spin(microseconds: spinB); ran.wrappingIncrement(ordering: .relaxed)
                },
                from: Self.siteB
            )
        }
        await Task.detached {
            readersDone.wait()
            readersDone.wait()
        }.value
        loop.stop()
        await loop.waitUntilStopped()

        #expect(bad.load(ordering: .relaxed) == 0)
        #expect(reads.load(ordering: .relaxed) > 0)
        // The ring never grew: one ring's worth of records at most.
        #expect(loop.flightRecorder.events().count <= 64 + 2 * 32)
    }
}
