import Benchmark
import CLoopFloor
import Dispatch
import MainlineLoop

// Mainline's main loop against `DispatchQueue.main` and a SwiftNIO event loop, side by side: every group runs the
// same workload on each peer, so that the ratios can be read off one table. See README.md for what each group
// measures and the figures.
//
// Hosting: the harness owns `main` (an async main that ends in `dispatchMain()`), so Mainline runs as a guest,
// pumped from the dispatch main queue — the mode a service with an async main gets. The benchmark closures are
// synchronous and run on a harness thread that is neither the main thread nor a consumer; they block on a
// semaphore until the consumer has run the last job, so no work of one iteration leaks into the next.

let benchmarks: @Sendable () -> Void = {
    MainLoop.main.attachAsGuest()

    let warmUp: @Sendable () async throws -> Void = {
        for peer in Peer.allCases { peer.warmUp() }
    }

    // 1. Post throughput: 1,000,000 posts per iteration from 1 or 2 producer threads, then wait for the last job.
    //    Scaled by `.mega`, so wall clock reads as ns per post and throughput as posts per second.
    //    The C floor's rows (a bare libuv loop with a lock-free MPSC queue) are in CFloor.swift.
    for producers in [oneProducer, twoProducers] {
        let label = producers.count == 1 ? "1 producer" : "\(producers.count) producers"
        for peer in Peer.allCases {
            Benchmark(
                "Post throughput, \(label): \(peer.rawValue)",
                configuration: postThroughputConfiguration(setup: warmUp)
            ) { benchmark in
                let total = benchmark.scaledIterations.count
                let perProducer = total / producers.count
                postSink.arm(perProducer * producers.count)
                producers.run { _ in peer.postTicks(perProducer) }
                postSink.wait()
            }
        }
        registerCFloorPostThroughput(producers: producers, label: label)
        // The same posts through a loop each producer holds in a local: what calling `MainLoop.main.post` costs beyond
        // the queue. Swift keeps another module's global object alive for the duration of a method call, so a caller
        // would retain and release `MainLoop.main` around every post; `MainLoop.post` is inlined and reaches the main
        // loop through a function of its own module instead (see `MainLoop+Posting.swift`), and this row is its peer.
        Benchmark(
            "Post throughput, \(label): Mainline MainLoop.post, loop held in a local",
            configuration: postThroughputConfiguration(setup: warmUp)
        ) { benchmark in
            let perProducer = benchmark.scaledIterations.count / producers.count
            postSink.arm(perProducer * producers.count)
            producers.run { _ in
                let loop = MainLoop.main
                for _ in 0..<perProducer { loop.post { postSink.tick() } }
            }
            postSink.wait()
        }
    }

    // 2. Round trip: post one job that signals a semaphore the posting thread waits on. One round trip per
    //    iteration, so the wall-clock percentiles are the round-trip latency percentiles.
    for peer in Peer.allCases {
        Benchmark(
            "Round trip: \(peer.rawValue)",
            configuration: .init(
                metrics: [.wallClock],
                timeUnits: .nanoseconds,
                warmupIterations: 1_000,
                scalingFactor: .one,
                maxDuration: .seconds(3),
                maxIterations: 50_000,
                setup: warmUp
            )
        ) { _ in
            peer.postReply()
            roundTripReply.wait()
        }
    }

    // 3. Timers: schedule 100,000 one-shot timers (delays spread over 0–50 ms) from inside the loop, then wait
    //    until all have fired. The custom metric is the scheduling alone, in ns per timer; wall clock is the whole
    //    iteration (≥ 50 ms: the last deadline).
    let schedulingCost = BenchmarkMetric.custom("schedule ns/timer", polarity: .prefersSmaller, useScalingFactor: false)
    let timerPeers: [(name: String, post: @Sendable () -> Void)] = [
        ("Mainline schedule(after:)", { MainLoop.main.post { TimerWorkload.scheduleOnMainline() } }),
        ("NIO scheduleTask(in:)", { nioLoop.execute { TimerWorkload.scheduleOnNIO() } }),
    ]
    for (name, post) in timerPeers {
        Benchmark(
            "Timers, 100k over 50 ms: \(name)",
            configuration: .init(
                metrics: [.wallClock, schedulingCost],
                timeUnits: .milliseconds,
                warmupIterations: 2,
                scalingFactor: .one,
                maxDuration: .seconds(3),
                maxIterations: 30,
                setup: {
                    try await warmUp()
                    _ = TimerWorkload.delays
                }
            )
        ) { benchmark in
            timerSink.arm(TimerWorkload.count)
            post()
            timerSink.wait()
            benchmark.measurement(schedulingCost, Int(timerSink.elapsedNanoseconds) / TimerWorkload.count)
        }
    }
    // The C floor: the same delays started with `uv_timer_start` on a bare libuv loop's thread (CLoopFloor).
    Benchmark(
        "Timers, 100k over 50 ms: C libuv uv_timer_start",
        configuration: .init(
            metrics: [.wallClock, schedulingCost],
            timeUnits: .milliseconds,
            warmupIterations: 2,
            scalingFactor: .one,
            maxDuration: .seconds(3),
            maxIterations: 30,
            setup: { startCFloor() },
            teardown: { cloopfloor_stop() }
        )
    ) { benchmark in
        let elapsed = TimerWorkload.delays.withUnsafeBufferPointer {
            cloopfloor_schedule_timers($0.baseAddress, $0.count)
        }
        benchmark.measurement(schedulingCost, Int(elapsed) / TimerWorkload.count)
    }

    // 4. Allocations in steady state: 1,000 posts per iteration from the benchmark thread, counted by the malloc
    //    interposer across all threads (producer and consumer). Deliberately not scaled: the table shows the count
    //    per 1,000 posts, so that a fraction of an allocation per post (a per-wake-up cost) stays visible.
    //    The warm-up iterations grow every queue to its steady-state capacity first.
    for peer in Peer.allCases {
        Benchmark(
            "Allocations per 1,000 posts: \(peer.rawValue)",
            configuration: .init(
                metrics: [.mallocCountTotal],
                warmupIterations: 50,
                scalingFactor: .one,
                maxDuration: .seconds(2),
                maxIterations: 500,
                setup: warmUp
            )
        ) { _ in
            postSink.arm(1_000)
            peer.postTicks(1_000)
            postSink.wait()
        }
    }

    // 5–7. MainlineEvents: fan-out, pending triggers, mailboxes (EventBenchmarks.swift).
    registerEventBenchmarks()

    // 8–10. MainlineObservables: subject posts, round trips and fan-out (ObservableBenchmarks.swift).
    registerObservableBenchmarks()

    // 11. What instrumentation (metrics, the stall watchdog) costs a post (InstrumentationBenchmarks.swift).
    registerInstrumentationBenchmarks()

    // 12. What carrying the poster's ServiceContext costs a post, off and on (TracingBenchmarks.swift).
    registerTracingBenchmarks()

    // 13. Hand-off to an awake loop, against the C floor (HandOffWorkload.swift).
    registerHandOffBenchmarks()

    // 14. Awaiting work on the loop from a task: `run` against a hand-written continuation (AwaitBenchmarks.swift).
    registerAwaitBenchmarks()

    // 15. Producers that wait: a `.suspend` mailbox against AsyncChannel and a bounded AsyncStream
    //     (WaitingProducersBenchmarks.swift).
    registerWaitingProducersBenchmarks()

    // 16. What the always-on flight recorder costs: on against off, in one run (FlightRecorderBenchmarks.swift).
    registerFlightRecorderBenchmarks()

    // 17. Schedules explored per second by MainlineTesting's exploring strategies (ScheduleExplorationBenchmarks.swift).
    registerScheduleExplorationBenchmarks()
}

/// The configuration of every post-throughput group (the loops', the C floor's, instrumentation's): 1,000,000 posts per
/// iteration read as ns per post (`.mega`), at most 25 iterations or 4 s.
func postThroughputConfiguration(
    setup: (@Sendable () async throws -> Void)? = nil,
    teardown: (@Sendable () async throws -> Void)? = nil
) -> Benchmark.Configuration {
    .init(
        metrics: [.wallClock, .throughput],
        timeUnits: .nanoseconds,
        warmupIterations: 2,
        scalingFactor: .mega,
        maxDuration: .seconds(4),
        maxIterations: 25,
        setup: setup,
        teardown: teardown
    )
}
