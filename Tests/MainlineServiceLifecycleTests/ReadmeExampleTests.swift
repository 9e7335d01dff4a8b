import CoreMetrics
import Logging
import MainlineLoop
import MainlineServiceLifecycle
import MetricsTestKit
import ServiceLifecycle
import Testing
import UnixSignals

// The README's "Running inside a service" example, kept here so that it compiles and passes; `ReadmeSnippetTests`
// checks that the README still shows it verbatim.

/// What the example's services did on the loop.
@MainActor final class Board {
    var lines: [String] = []
}

/// A service that posts into the loop while it runs, and once more when the group shuts down.
struct Greeter: Service {
    let loop: MainLoop
    let board: Board

    func run() async throws {
        let board = self.board
        loop.post { board.lines.append("hello") }
        try? await gracefulShutdown()
        loop.post { board.lines.append("goodbye") }  // still accepted: the loop drains after this service
    }
}

func makeServiceGroup(
    loop: MainLoop = .main,
    board: Board,
    metrics: any MetricsFactory = MetricsSystem.factory,
    signals: [UnixSignal] = [.sigterm, .sigint],
    logger: Logger
) -> ServiceGroup {
    let loopService = MainLoopService(
        loop: loop,
        metricsFactory: metrics,
        logger: logger,
        stallThreshold: .milliseconds(250)  // log and count callbacks that hold the loop longer
    )
    return ServiceGroup(
        configuration: .init(
            services: [
                .init(service: loopService),  // first, so that it shuts down last
                .init(service: Greeter(loop: loop, board: board)),
            ],
            gracefulShutdownSignals: signals,
            logger: logger
        )
    )
}

// Five minutes, though each test takes well under a second alone: their loops run in guest mode, on the main
// actor every main-actor suite of the process shares, and under ThreadSanitizer on two cores a main-actor job
// waited over two minutes for its turn. The limit is there for a drain that never ends, not for speed.
@Suite("MainLoopService README example", .timeLimit(.minutes(5)))
struct ReadmeExampleTests {
    @Test func theLoopRunsInAServiceGroupAndDrainsAfterTheServicesThatPostIntoIt() async throws {
        let loop = MainLoop()  // the package's tests never run `MainLoop.main`
        let board = await MainActor.run { Board() }
        let metrics = TestMetrics()
        let group = makeServiceGroup(
            loop: loop,
            board: board,
            metrics: metrics,
            signals: [],
            logger: Logger(label: "readme")
        )
        await MainActor.run {
            _ = loop.onShutdown { board.lines.append("loop drained") }
        }
        async let running: Void = group.run()
        while await MainActor.run(body: { board.lines.isEmpty }), !Task.isCancelled { await Task.yield() }
        await group.triggerGracefulShutdown()
        try await running
        await MainActor.run { #expect(board.lines == ["hello", "goodbye", "loop drained"]) }
        #expect(metrics.counterTotal(label: LoopMetricName.posts) >= 1)
        #expect(loop.state == .stopped)
    }
}
