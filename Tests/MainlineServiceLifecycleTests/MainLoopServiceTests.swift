import Logging
import MainlineLoop
import MainlineServiceLifecycle
import MetricsTestKit
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing

// Five minutes, though each test takes well under a second alone: their loops run in guest mode, on the main
// actor every main-actor suite of the process shares, and under ThreadSanitizer on two cores a main-actor job
// waited over two minutes for its turn. The limit is there for a drain that never ends, not for speed.
/// `MainLoopService` on real main loops of its own (never `MainLoop.main`), in guest mode under Swift Testing.
@Suite("MainLoopService", .timeLimit(.minutes(5)))
struct MainLoopServiceTests {
    /// What ran on the loop, in order.
    @MainActor final class Log {
        var entries: [String] = []
        var ran = 0
    }

    /// Runs `service` on `loop` with a hook that logs how many of 100 posts had run; once it runs, queues those 100
    /// posts behind one job that triggers graceful shutdown and holds the loop until the service has stopped it (a
    /// state change on another thread, no timing), then runs `whileStopping` in that job. Returns when the service
    /// has returned.
    private func shutDownWithOneHundredPostsQueued(
        _ service: MainLoopService,
        on loop: MainLoop,
        log: Log,
        whileStopping: @escaping @MainActor @Sendable () -> Void = {}
    ) async throws {
        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await service.run() }
                let running = await postAndWait(to: loop) {
                    loop.onShutdown { log.entries.append("hook after \(log.ran) posts") }
                }
                guard running else {
                    Issue.record("the loop never ran its first job (cancelled: \(Task.isCancelled))")
                    group.cancelAll()
                    return
                }
                loop.post {
                    // Queued behind this job, so none can run before the shutdown begins.
                    for _ in 0..<100 { _ = loop.post { log.ran += 1 } }
                    trigger.triggerGracefulShutdown()
                    while loop.state != .stopping {}
                    whileStopping()
                }
                try await group.waitForAll()
            }
        }
    }

    @Test func gracefulShutdownDrainsPostedWorkRunsHooksAndThenRefusesPosts() async throws {
        let loop = MainLoop()
        let service = MainLoopService(loop: loop, instrumentation: nil, logger: Logger(label: "test"))
        let log = await MainActor.run { Log() }
        try await shutDownWithOneHundredPostsQueued(service, on: loop, log: log) {
            if !loop.post({ log.ran += 1_000 }) { log.entries.append("refused") }
        }
        await MainActor.run {
            #expect(log.ran == 100)
            #expect(log.entries == ["refused", "hook after 100 posts"])
        }
        #expect(loop.state == .stopped)
        #expect(loop.post {} == false)
        #expect(_UVResources.live(of: loop) == _UVResources.Counts())
    }

    @Test func aDrainDeadlineBoundsTheDrainReleasingWhatIsLeftAndReportingIt() async throws {
        let loop = MainLoop()
        let metrics = TestMetrics()
        // Instrumented here, not by the service: a service that installs instrumentation does so in a main-actor hop
        // at start, which the job holding the loop below would block (and the shutdown with it).
        await MainActor.run { loop.instrument(LoopInstrumentation(metricsFactory: metrics)) }
        let service = MainLoopService(
            loop: loop,
            instrumentation: nil,
            logger: Logger(label: "test"),
            drainDeadline: .zero
        )
        #expect(service.drainDeadline == .zero)
        let log = await MainActor.run { Log() }
        // With a zero deadline none of the queued posts may start.
        try await shutDownWithOneHundredPostsQueued(service, on: loop, log: log)
        await MainActor.run { #expect(log.entries == ["hook after 0 posts"]) }
        #expect(try metrics.expectCounter(LoopMetricName.postsDiscarded).values == [100])
        #expect(loop.state == .stopped)
        #expect(_UVResources.live(of: loop) == _UVResources.Counts())
    }

    @Test func cancellingTheServiceDrainsTheLoopToo() async throws {
        let loop = MainLoop()
        let service = MainLoopService(loop: loop, instrumentation: nil, logger: Logger(label: "test"))
        let log = await MainActor.run { Log() }
        let run = Task { try await service.run() }
        let running = await postAndWait(to: loop) { loop.onShutdown { log.entries.append("hook") } }
        #expect(running, "the loop ran its first job")
        run.cancel()
        try await run.value
        #expect(loop.state == .stopped)
        await MainActor.run { #expect(log.entries == ["hook"]) }
    }

    @Test func theServiceReturnsWhenTheLoopIsStoppedElsewhere() async throws {
        let loop = MainLoop()
        let service = MainLoopService(loop: loop, instrumentation: nil, logger: Logger(label: "test"))
        try await testGracefulShutdown { _ in
            async let run: Void = service.run()
            loop.post { loop.stop() }
            try await run
        }
        #expect(loop.state == .stopped)
    }

    @Test func theServiceInstallsItsInstrumentationAndReportsTheDrain() async throws {
        let loop = MainLoop()
        let metrics = TestMetrics()
        let service = MainLoopService(loop: loop, metricsFactory: metrics, logger: Logger(label: "test"))
        try await testGracefulShutdown { trigger in
            async let run: Void = service.run()
            // The service instruments the loop on the main actor as it starts: let it (the loop below is about to
            // hold the main actor until the service stops it).
            while await !MainActor.run(body: { loop.core.isInstrumented }) { await Task.yield() }
            loop.post {
                for _ in 0..<10 { _ = loop.post {} }
                trigger.triggerGracefulShutdown()
                while loop.state != .stopping {}
            }
            try await run
        }
        let posts = metrics.counterTotal(label: LoopMetricName.posts)
        #expect(posts == 11, "the ten posts the drain ran, and the one that posted them")
    }

    /// A service that feeds the loop until graceful shutdown, then posts a last message.
    struct Feeder: Service {
        let loop: MainLoop
        let log: Log

        func run() async throws {
            let log = self.log
            try? await gracefulShutdown()
            // The group shuts services down in reverse order: the loop, listed first, still accepts this post.
            let accepted = loop.post { log.entries.append("goodbye from the feeder") }
            precondition(accepted, "the loop stopped before the services that post into it")
        }
    }

    @Test func inAServiceGroupTheLoopDrainsAfterTheServicesListedAfterIt() async throws {
        let loop = MainLoop()
        let log = await MainActor.run { Log() }
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: MainLoopService(loop: loop, instrumentation: nil, logger: Logger(label: "test"))),
                    .init(service: Feeder(loop: loop, log: log)),
                ],
                logger: Logger(label: "test")
            )
        )
        async let run: Void = group.run()
        let running = await postAndWait(to: loop) { loop.onShutdown { log.entries.append("hook") } }
        #expect(running, "the loop ran its first job")
        await group.triggerGracefulShutdown()
        try await run
        #expect(loop.state == .stopped)
        await MainActor.run { #expect(log.entries == ["goodbye from the feeder", "hook"]) }
    }
}
