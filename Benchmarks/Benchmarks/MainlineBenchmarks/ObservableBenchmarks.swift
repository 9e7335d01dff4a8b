import Benchmark

// MainlineObservables' subjects measured side by side with OpenCombine's `CurrentValueSubject`: values posted from
// other threads to an observer on the main loop (throughput and round trip), and synchronous fan-out of a subject to
// its observers. See README.md for what each group measures and the figures.
//
// As in EventBenchmarks.swift: what must run on the main actor runs in `onMainLoop` bodies, and the fan-out loops
// time themselves on the loop and report picoseconds per observer call.

/// Registers the subject-post, subject round-trip and subject fan-out groups. Called from `benchmarks`, after the main
/// loop attached.
func registerObservableBenchmarks() {
    // 8. Subject post throughput: 1,000,000 values per iteration from 1 (or 2 × 500,000 from 2) producer threads,
    //    every one new, so none is conflated; the iteration ends when the observer on the main loop has seen them all.
    //    Scaled by `.mega`: wall clock reads as ns per value (aggregate), end to end.
    for producers in [oneProducer, twoProducers] {
        for peer in SubjectPostPeer.allCases {
            let label = producers.count == 1 ? "1 producer" : "\(producers.count) producers"
            let name = "Subject post throughput, \(label): \(peer.rawValue)"
            Benchmark(
                name,
                configuration: .init(
                    metrics: [.wallClock, .throughput],
                    timeUnits: .nanoseconds,
                    warmupIterations: 1,
                    scalingFactor: .mega,
                    maxDuration: .seconds(3),
                    maxIterations: 20
                )
            ) { benchmark, workload in
                let perProducer = benchmark.scaledIterations.count / producers.count
                let total = perProducer * producers.count
                let first = workload.claimValues(total)
                subjectSink.arm(total)
                producers.run { producer in workload.produce(perProducer, from: first + producer * perProducer) }
                subjectSink.wait(for: name)
                if producers.count == 1 {
                    precondition(
                        subjectSink.last == first + total - 1,
                        "\(name): the observer saw \(subjectSink.last) last, expected \(first + total - 1)"
                    )
                }
            } setup: {
                SubjectPostWorkload.settled(peer)
            }
        }
    }

    // 9. Subject round trip: the benchmark thread posts one new value; the observer on the main loop wakes it. One
    //    round trip per iteration, so the wall-clock percentiles are the latency percentiles.
    for peer in SubjectPostPeer.allCases {
        let name = "Subject post round trip: \(peer.rawValue)"
        Benchmark(
            name,
            configuration: .init(
                metrics: [.wallClock],
                timeUnits: .nanoseconds,
                warmupIterations: 1_000,
                scalingFactor: .one,
                maxDuration: .seconds(2),
                maxIterations: 20_000
            )
        ) { _, workload in
            let value = workload.claimValues(1)
            subjectSink.arm(1)
            workload.produce(1, from: value)
            subjectSink.wait(for: name)
        } setup: {
            SubjectPostWorkload.settled(peer)
        }
    }

    // 10. Subject fan-out: one subject with 1, 10 or 1,000 observers, set on the main actor to a new value until the
    //     observers were called 1,000,000 times in all (1,000,000, 100,000 or 1,000 values). Every observer
    //     increments one counter. The custom metric is ps per observer call.
    let perObserverCall = BenchmarkMetric.custom("ps/observer call", polarity: .prefersSmaller, useScalingFactor: false)
    for (observers, label) in [(1, "1 observer"), (10, "10 observers"), (1_000, "1,000 observers")] {
        for peer in SubjectFanOutPeer.allCases {
            Benchmark(
                "Subject fan-out, \(label): \(peer.rawValue)",
                configuration: .init(
                    metrics: [.wallClock, perObserverCall],
                    timeUnits: .microseconds,
                    units: [perObserverCall: .count],
                    warmupIterations: 3,
                    scalingFactor: .one,
                    maxDuration: .seconds(2),
                    maxIterations: 100
                )
            ) { benchmark, workload in
                let nanoseconds = onMainLoop { workload.run() }
                benchmark.measurement(
                    perObserverCall,
                    picosecondsEach(nanoseconds, SubjectFanOutWorkload.callsPerRun)
                )
            } setup: {
                onMainLoop { SubjectFanOutWorkload(peer: peer, observerCount: observers) }
            }
        }
    }
}
