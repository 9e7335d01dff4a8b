import Benchmark
import Dispatch
import MainlineEvents
import MainlineLoop

/// 16. What the always-on flight recorder costs (issue 27): the same workloads with the recorder on (as every loop
/// runs) and off (`LoopFlightRecorder.Settings.isRecording`, which exists to measure this), side by side in one run —
/// post throughput on a `MainLoop` held in a local and on an `EventLoop` (1,000,000 posts from one producer, then wait
/// for the last job), allocations per 1,000 posts, the hand-off to an awake `MainLoop`, and fan-out. The
/// `Benchmarks/HISTORY.md` section "The flight recorder (issue 27)" has the figures.
func registerFlightRecorderBenchmarks() {
    for recording in [true, false] {
        let state = recording ? "on" : "off"
        let setRecording: @Sendable () async -> Void = {
            MainLoop.main.flightRecorder.settings.isRecording = recording
            benchEventLoop.flightRecorder.settings.isRecording = recording
        }
        let restore: @Sendable () async -> Void = {
            MainLoop.main.flightRecorder.settings.isRecording = true
            benchEventLoop.flightRecorder.settings.isRecording = true
        }

        Benchmark(
            "Flight recorder \(state), post throughput, 1 producer: MainLoop.post, loop held in a local",
            configuration: postThroughputConfiguration(
                setup: {
                    await setRecording()
                    Peer.mainline.warmUp()
                    Peer.mainlineEventLoop.warmUp()
                },
                teardown: restore
            )
        ) { benchmark in
            let total = benchmark.scaledIterations.count
            postSink.arm(total)
            oneProducer.run { _ in
                let loop = MainLoop.main
                for _ in 0..<total { loop.post { postSink.tick() } }
            }
            postSink.wait()
        }

        Benchmark(
            "Flight recorder \(state), post throughput, 1 producer: EventLoop.post",
            configuration: postThroughputConfiguration(
                setup: {
                    await setRecording()
                    Peer.mainline.warmUp()
                    Peer.mainlineEventLoop.warmUp()
                },
                teardown: restore
            )
        ) { benchmark in
            let total = benchmark.scaledIterations.count
            postSink.arm(total)
            oneProducer.run { _ in Peer.mainlineEventLoop.postTicks(total) }
            postSink.wait()
        }

        Benchmark(
            "Flight recorder \(state), allocations per 1,000 posts: MainLoop.main.post",
            configuration: .init(
                metrics: [.mallocCountTotal],
                warmupIterations: 50,
                scalingFactor: .one,
                maxDuration: .seconds(2),
                maxIterations: 500,
                setup: {
                    await setRecording()
                    Peer.mainline.warmUp()
                    Peer.mainlineEventLoop.warmUp()
                },
                teardown: restore
            )
        ) { _ in
            postSink.arm(1_000)
            Peer.mainline.postTicks(1_000)
            postSink.wait()
        }

        let handOff = BenchmarkMetric.custom("hand-off ns", polarity: .prefersSmaller, useScalingFactor: false)
        Benchmark(
            "Flight recorder \(state), hand-off to an awake loop: MainLoop.main.post",
            configuration: .init(
                metrics: [handOff],
                warmupIterations: 1_000,
                scalingFactor: .one,
                maxDuration: .seconds(3),
                maxIterations: 20_000,
                setup: {
                    await setRecording()
                    Peer.mainline.warmUp()
                    keepAwake.start(.mainline)
                },
                teardown: {
                    keepAwake.stop()
                    await restore()
                }
            )
        ) { benchmark in
            benchmark.measurement(handOff, Int(handOffStamp.measure(.mainline)))
        }

        let perObserverCall = BenchmarkMetric.custom(
            "ps/observer call",
            polarity: .prefersSmaller,
            useScalingFactor: false
        )
        Benchmark(
            "Flight recorder \(state), fan-out, 1,000 observers: Mainline SimpleEvent",
            configuration: .init(
                metrics: [.wallClock, perObserverCall],
                timeUnits: .microseconds,
                units: [perObserverCall: .count],
                warmupIterations: 3,
                scalingFactor: .one,
                maxDuration: .seconds(2),
                maxIterations: 100,
                teardown: restore
            )
        ) { (benchmark: Benchmark, workload: FanOutWorkload) in
            let nanoseconds = onMainLoop { workload.run() }
            benchmark.measurement(perObserverCall, picosecondsEach(nanoseconds, FanOutWorkload.callsPerRun))
        } setup: {
            onMainLoop { () -> FanOutWorkload in
                MainLoop.main.flightRecorder.settings.isRecording = recording
                return FanOutWorkload(peer: .simpleEvent, observerCount: 1_000)
            }
        }
    }
}
