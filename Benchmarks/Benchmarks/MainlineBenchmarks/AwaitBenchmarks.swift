import Benchmark
import MainlineLoop

// Awaiting work on the main loop from a task (issue 15): `MainLoop.run { }` against what callers wrote before it — a
// `withCheckedContinuation` around `post` — and against `MainActor.run { }`, which in guest mode is served by the same
// dispatch main queue. One round trip per iteration, from the harness's task: wall-clock percentiles are the round-trip
// latency. Target: `run` no slower than the hand-written continuation.

/// What the round trips run on the loop: nothing, returned.
@MainActor private var awaited = 0

func registerAwaitBenchmarks() {
    let peers: [(name: String, roundTrip: @Sendable () async throws -> Void)] = [
        ("MainLoop.run", { _ = try await MainLoop.main.run { awaited } }),
        (
            "withCheckedContinuation + post",
            {
                _ = await withCheckedContinuation { (done: CheckedContinuation<Int, Never>) in
                    MainLoop.main.post { done.resume(returning: awaited) }
                }
            }
        ),
        ("MainActor.run", { _ = await MainActor.run { awaited } }),
    ]
    for peer in peers {
        Benchmark(
            "Awaiting the loop: \(peer.name)",
            configuration: .init(
                metrics: [.wallClock, .mallocCountTotal],
                timeUnits: .nanoseconds,
                warmupIterations: 1_000,
                scalingFactor: .one,
                maxDuration: .seconds(3),
                maxIterations: 50_000
            )
        ) { _ in
            try await peer.roundTrip()
        }
    }
}
