import Benchmark
import CLoopFloor
import Dispatch

// The C floor: the post-throughput workload on a bare libuv loop fed by a lock-free MPSC queue (CLoopFloor), as
// rows of the same groups, driven by the same producer threads. Its loop thread is started in each benchmark's setup
// and joined in its teardown, so no thread outlives the benchmark.

/// The C floor's two node policies: a pool of nodes per producer, or a malloc per job (freed by the loop thread).
enum CFloorNodes: String, CaseIterable, Sendable {
    case pooled = "C floor (libuv + lock-free MPSC)"
    case mallocPerJob = "C floor, malloc per node"
}

/// Starts the C floor's loop thread and pushes 1,000 jobs through it, as every peer's warm-up does.
func startCFloor() {
    let rc = cloopfloor_start()
    precondition(rc == 0, "cloopfloor_start failed: \(rc)")
    cloopfloor_arm(1_000)
    cloopfloor_post_ticks(0, 1_000, 0)
    cloopfloor_wait()
}

/// Registers the C floor's rows of the post-throughput group for `producers`, named as the other peers' rows.
func registerCFloorPostThroughput(producers: ProducerThreads, label: String) {
    for nodes in CFloorNodes.allCases {
        Benchmark(
            "Post throughput, \(label): \(nodes.rawValue)",
            configuration: postThroughputConfiguration(setup: { startCFloor() }, teardown: { cloopfloor_stop() })
        ) { benchmark in
            let perProducer = benchmark.scaledIterations.count / producers.count
            let mallocNodes: Int32 = nodes == .mallocPerJob ? 1 : 0
            cloopfloor_arm(perProducer * producers.count)
            producers.run { producer in cloopfloor_post_ticks(producer, perProducer, mallocNodes) }
            cloopfloor_wait()
        }
    }
}
