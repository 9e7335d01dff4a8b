import Benchmark
import CoreMetrics
import MainlineInspection
import MainlineLoop

/// 11. What instrumenting the loop costs a post: the post-throughput workload (1,000,000 posts from one producer,
/// then wait for the last job) on `MainLoop.main` uninstrumented, with metrics, and with metrics and the stall
/// watchdog. The metrics go to swift-metrics' no-op handler, so the figures are the loop's own counting and its
/// once-per-iteration hand-over, not a backend's.
func registerInstrumentationBenchmarks() {
    let settings: [(name: String, instrumentation: LoopInstrumentation?)] = [
        ("off", nil),
        ("metrics", LoopInstrumentation(metricsFactory: NOOPMetricsHandler.instance)),
        (
            "metrics + watchdog",
            LoopInstrumentation(
                metricsFactory: NOOPMetricsHandler.instance,
                watchdog: LoopWatchdog(threshold: .seconds(1))
            )
        ),
    ]
    for (name, instrumentation) in settings {
        Benchmark(
            "Instrumentation, post throughput: Mainline \(name)",
            configuration: postThroughputConfiguration(
                setup: {
                    Peer.mainline.warmUp()
                    await MainActor.run { MainLoop.main.instrument(instrumentation) }
                },
                teardown: {
                    await MainActor.run { MainLoop.main.instrument(nil) }
                }
            )
        ) { benchmark in
            let total = benchmark.scaledIterations.count
            postSink.arm(total)
            oneProducer.run { _ in Peer.mainline.postTicks(total) }
            postSink.wait()
        }
    }
}
