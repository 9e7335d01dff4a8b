import Benchmark
import MainlineLoop
import ServiceContextModule

/// A request's identity in the context, as a tracer would keep its span context.
private enum BenchTraceIDKey: ServiceContextKey {
    typealias Value = String
}

/// 12. What carrying the poster's `ServiceContext` costs a post: the post-throughput workload (1,000,000 posts from
/// one producer, then wait for the last job) on `MainLoop.main`, with `propagatesServiceContext` off or on, and with
/// no context or a context current on the producer thread. Off must cost nothing; on with no context costs the
/// task-local read; on with a context also costs the wrapping closure (one allocation per post) and the binding on
/// the loop thread. `mallocCountTotal` counts allocations per iteration (all threads) to show which cases allocate.
func registerTracingBenchmarks() {
    var request = ServiceContext.topLevel
    request[BenchTraceIDKey.self] = "request-1"
    let settings: [(name: String, propagates: Bool, context: ServiceContext?)] = [
        ("off, no context", false, nil),
        ("off, context current", false, request),
        ("on, no context", true, nil),
        ("on, context current", true, request),
    ]
    for (name, propagates, context) in settings {
        Benchmark(
            "Tracing, post throughput: Mainline \(name)",
            configuration: .init(
                metrics: [.wallClock, .throughput, .mallocCountTotal],
                timeUnits: .nanoseconds,
                warmupIterations: 2,
                scalingFactor: .mega,
                maxDuration: .seconds(4),
                maxIterations: 25,
                setup: {
                    Peer.mainline.warmUp()
                    MainLoop.main.propagatesServiceContext = propagates
                },
                teardown: {
                    MainLoop.main.propagatesServiceContext = false
                }
            )
        ) { benchmark in
            let total = benchmark.scaledIterations.count
            postSink.arm(total)
            oneProducer.run { _ in
                // Bound on the producer thread (outside any task: the runtime's fallback storage), as a request
                // handler's context is bound where it calls `post`.
                ServiceContext.withValue(context) { Peer.mainline.postTicks(total) }
            }
            postSink.wait()
        }
    }
}
