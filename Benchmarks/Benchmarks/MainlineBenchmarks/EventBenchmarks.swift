import Benchmark
import MainlineEvents

// MainlineEvents measured side by side with its peers: synchronous fan-out against OpenCombine and plain closures,
// the cost of triggering a `LazySimpleEvent` that is already pending, and the thread-safe mailboxes against posting
// each value. See README.md for what each group measures and the figures.
//
// Everything that must run on the main actor runs in `onMainLoop` bodies (posts on the main loop, which the
// benchmark thread waits for), as the timer group does. The fan-out and pending-trigger loops take a few ns per call,
// so the harness's whole-nanosecond resolution of a scaled wall clock would be too coarse: they time themselves on
// the loop and report custom metrics in picoseconds per call, and the wall clock (one run, in µs) is a cross-check
// that includes the hop to the loop.

/// Registers the fan-out, pending-trigger and mailbox groups. Called from `benchmarks`, after the main loop attached.
func registerEventBenchmarks() {
    // 5. Fan-out: one event with 1, 10 or 1,000 observers, triggered until the observers were called 1,000,000 times
    //    in all (1,000,000, 100,000 or 1,000 triggers), synchronously, on the main actor. Every observer increments
    //    one counter. The custom metric is ps per observer call.
    let perObserverCall = BenchmarkMetric.custom("ps/observer call", polarity: .prefersSmaller, useScalingFactor: false)
    for (observers, label) in [(1, "1 observer"), (10, "10 observers"), (1_000, "1,000 observers")] {
        for peer in FanOutPeer.allCases {
            Benchmark(
                "Fan-out, \(label): \(peer.rawValue)",
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
                benchmark.measurement(perObserverCall, picosecondsEach(nanoseconds, FanOutWorkload.callsPerRun))
            } setup: {
                onMainLoop { FanOutWorkload(peer: peer, observerCount: observers) }
            }
        }
    }

    // 6. Pending trigger: 1,000,000 triggers of a `LazySimpleEvent` whose delivery is already pending, on the loop (in
    //    a post body) or from the benchmark thread (while the loop is held busy, so that the delivery cannot start).
    //    Each run is delivered once, afterwards. The custom metric is ps per trigger.
    let perTrigger = BenchmarkMetric.custom("ps/trigger", polarity: .prefersSmaller, useScalingFactor: false)
    let triggerPlaces: [(name: String, onLoop: Bool)] = [("on the loop", true), ("from another thread", false)]
    for (name, onLoop) in triggerPlaces {
        Benchmark(
            "Pending LazySimpleEvent trigger: \(name)",
            configuration: .init(
                metrics: [.wallClock, perTrigger],
                timeUnits: .microseconds,
                units: [perTrigger: .count],
                warmupIterations: 3,
                scalingFactor: .one,
                maxDuration: .seconds(2),
                maxIterations: 200
            )
        ) { benchmark, workload in
            let nanoseconds = onLoop ? onMainLoop { workload.triggerOnLoop() } : workload.triggerFromThisThread()
            workload.waitForDelivery()
            benchmark.measurement(perTrigger, picosecondsEach(nanoseconds, PendingTriggerWorkload.triggersPerRun))
        } setup: {
            onMainLoop { PendingTriggerWorkload() }
        }
    }

    // 7. Mailbox throughput: 1,000,000 values per iteration from 1 (or 2 × 500,000 from 2) producer threads; then the
    //    benchmark thread places an end marker and waits until the consumer, an observer on the main loop, took it.
    //    Scaled by `.mega`: wall clock reads as ns per put (aggregate), end to end. The custom metrics are the books
    //    of each iteration (the end marker not included): values delivered, dropped, and refused places (retried).
    let delivered = BenchmarkMetric.custom("delivered", polarity: .prefersLarger, useScalingFactor: false)
    let dropped = BenchmarkMetric.custom("dropped", polarity: .prefersSmaller, useScalingFactor: false)
    let rejected = BenchmarkMetric.custom("rejected (retried)", polarity: .prefersSmaller, useScalingFactor: false)
    for producers in [oneProducer, twoProducers] {
        for peer in MailboxPeer.allCases {
            let label = producers.count == 1 ? "1 producer" : "\(producers.count) producers"
            Benchmark(
                "Mailbox throughput, \(label): \(peer.rawValue)",
                configuration: .init(
                    metrics: [.wallClock, .throughput, delivered, dropped, rejected],
                    timeUnits: .nanoseconds,
                    units: [delivered: .count, dropped: .count, rejected: .count],
                    warmupIterations: 1,
                    scalingFactor: .mega,
                    maxDuration: .seconds(3),
                    maxIterations: 20
                )
            ) { benchmark, workload in
                let total = benchmark.scaledIterations.count
                let perProducer = total / producers.count
                let (before, receivedBefore) = (workload.counts, mailboxConsumer.received)
                producers.run { _ in workload.produce(perProducer) }
                workload.placeEndMarker()
                mailboxConsumer.waitForEnd()
                let books = workload.counts.since(before, placed: perProducer * producers.count, peer: workload.peer)
                precondition(
                    mailboxConsumer.received - receivedBefore == books.delivered,
                    "mailbox throughput (\(peer.rawValue)): the consumer received \(mailboxConsumer.received - receivedBefore) values, the books say \(books.delivered)"
                )
                benchmark.measurement(delivered, books.delivered)
                benchmark.measurement(dropped, books.dropped)
                benchmark.measurement(rejected, books.rejected)
            } setup: {
                onMainLoop { MailboxWorkload(peer: peer) }
            }
        }
    }
}

/// `nanoseconds` spent on `count` calls, as picoseconds per call.
func picosecondsEach(_ nanoseconds: UInt64, _ count: Int) -> Int {
    Int(nanoseconds * 1_000 / UInt64(count))
}

extension MailboxCounts {
    /// The books of one run, the end marker taken out, after checking that they balance: every value placed was
    /// accepted (eventually, for `.reject` with retry), and every accepted value was delivered or dropped, none left.
    fileprivate func since(_ before: MailboxCounts, placed: Int, peer: MailboxPeer) -> MailboxCounts {
        let marker = peer == .post ? 0 : 1
        let run = MailboxCounts(
            accepted: accepted - before.accepted - marker,
            rejected: rejected - before.rejected,
            dropped: dropped - before.dropped,
            delivered: delivered - before.delivered - marker
        )
        precondition(
            run.accepted == placed && pending == 0 && run.delivered + run.dropped == placed,
            "mailbox throughput (\(peer.rawValue)): the books do not balance for \(placed) values: \(run); total \(self)"
        )
        return run
    }
}
