import Dispatch
import MainlineLoop
import MetricsTestKit
import Testing

/// `mainline_loop_posts` on a real main loop in guest mode counts posts and nothing else: not the main-queue pumps
/// that run the loop, not main-actor work that dispatch runs beside it.
///
/// The time limit only turns a lost wake-up into a failure. It is 3 minutes: alone the test takes a third of a second,
/// but its main-actor hops wait behind every other suite's main-actor work, which under ThreadSanitizer took 50 s.
@Suite("Post counter in guest mode", .timeLimit(.minutes(3)))
struct GuestModePostCountTests {
    private static let posts = 2_000

    @Test func thePostCounterEqualsThePostsWhileMainActorWorkRunsBesideTheLoop() async throws {
        let loop = MainLoop()
        let metrics = TestMetrics()
        await MainActor.run { loop.instrument(LoopInstrumentation(metricsFactory: metrics)) }
        @MainActor final class Count { var ran = 0 }
        let count = Count()
        // A Hummingbird handler's mix: posts from other threads, and hops onto the main actor in between.
        await Task.detached {
            for index in 0..<Self.posts {
                _ = loop.post { count.ran += 1 }
                if index.isMultiple(of: 2) { await MainActor.run { _ = count.ran } }
            }
        }.value
        loop.stop()
        await loop.waitUntilStopped()
        #expect(await count.ran == Self.posts)
        let counter = try metrics.expectCounter(LoopMetricName.posts)
        #expect(counter.totalValue == Int64(Self.posts))
    }
}
