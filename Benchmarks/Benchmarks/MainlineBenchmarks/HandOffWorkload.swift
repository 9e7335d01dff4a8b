import Benchmark
import CLoopFloor
import Dispatch
import MainlineLoop
import Synchronization

// Hand-off to an awake loop (issue 14): the consumer is kept awake by a job that re-posts itself, and one post from
// the benchmark thread is timed from just before the post until the job starts to run, on one clock
// (CLOCK_MONOTONIC, `cloopfloor_now_ns`) for every peer. Unlike the round trip, the way back (the semaphore that
// wakes the benchmark thread) is not in the figure, and the consumer never sleeps.

/// A consumer of the hand-off group: a `Peer`, or the C floor.
enum HandOffPeer: Sendable, CaseIterable {
    case peer(Peer)
    case cFloor

    static var allCases: [HandOffPeer] { Peer.allCases.map { .peer($0) } + [.cFloor] }

    var name: String {
        switch self {
        case .peer(let peer): peer.rawValue
        case .cFloor: CFloorNodes.pooled.rawValue
        }
    }
}

/// The self-re-posting job that keeps a Swift peer's consumer awake.
final class KeepAwake: Sendable {
    private let awake = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)

    /// Posts the first spin; from then on the consumer always has one queued.
    func start(_ peer: Peer) {
        awake.store(true, ordering: .relaxed)
        peer.postSpin()
    }

    /// The spin: re-posts itself until ``stop()``.
    func spin(_ peer: Peer) {
        if awake.load(ordering: .relaxed) {
            peer.postSpin()
        } else {
            stopped.signal()
        }
    }

    /// Returns once the last spin has run: nothing of this benchmark is left on the consumer.
    func stop() {
        awake.store(false, ordering: .relaxed)
        stopped.wait()
    }
}

let keepAwake = KeepAwake()

/// When the timed job ran, handed from the consumer to the benchmark thread.
final class HandOffStamp: @unchecked Sendable {
    // @unchecked Sendable: `ranAt` is written by the consumer before it signals `done`, and read by the benchmark
    // thread after `done.wait()` returned; the semaphore orders the two.
    private var ranAt: UInt64 = 0
    private let done = DispatchSemaphore(value: 0)

    /// The timed job.
    func ran() {
        ranAt = cloopfloor_now_ns()
        done.signal()
    }

    /// Times one hand-off of `peer`: ns from just before the post until the job started.
    func measure(_ peer: Peer) -> UInt64 {
        let postedAt = cloopfloor_now_ns()
        peer.postHandOff()
        done.wait()
        return ranAt - postedAt
    }
}

let handOffStamp = HandOffStamp()

extension Peer {
    /// Posts one spin of ``keepAwake``.
    func postSpin() {
        switch self {
        case .mainline:
            MainLoop.main.post { keepAwake.spin(.mainline) }
        case .mainlineEventLoop:
            benchEventLoop.post { keepAwake.spin(.mainlineEventLoop) }
        case .dispatchMain:
            DispatchQueue.main.async { keepAwake.spin(.dispatchMain) }
        case .nio:
            nioLoop.execute { keepAwake.spin(.nio) }
        }
    }

    /// Posts the timed job of a hand-off.
    func postHandOff() {
        switch self {
        case .mainline:
            MainLoop.main.post { handOffStamp.ran() }
        case .mainlineEventLoop:
            benchEventLoop.post { handOffStamp.ran() }
        case .dispatchMain:
            DispatchQueue.main.async { handOffStamp.ran() }
        case .nio:
            nioLoop.execute { handOffStamp.ran() }
        }
    }
}

/// Registers the hand-off group: one benchmark per consumer, one timed hand-off per iteration.
func registerHandOffBenchmarks() {
    let handOff = BenchmarkMetric.custom("hand-off ns", polarity: .prefersSmaller, useScalingFactor: false)
    for consumer in HandOffPeer.allCases {
        Benchmark(
            "Hand-off to an awake loop: \(consumer.name)",
            configuration: .init(
                metrics: [handOff],
                warmupIterations: 1_000,
                scalingFactor: .one,
                maxDuration: .seconds(3),
                maxIterations: 20_000,
                setup: {
                    switch consumer {
                    case .peer(let peer):
                        peer.warmUp()
                        keepAwake.start(peer)
                    case .cFloor:
                        startCFloor()
                        cloopfloor_keep_awake_start()
                    }
                },
                teardown: {
                    switch consumer {
                    case .peer: keepAwake.stop()
                    case .cFloor:
                        cloopfloor_keep_awake_stop()
                        cloopfloor_stop()
                    }
                }
            )
        ) { benchmark in
            switch consumer {
            case .peer(let peer):
                benchmark.measurement(handOff, Int(handOffStamp.measure(peer)))
            case .cFloor:
                benchmark.measurement(handOff, Int(cloopfloor_hand_off()))
            }
        }
    }
}
