import CoreMetrics
import Logging
import MainlineInspection
import MainlineLoop
import ServiceLifecycle

/// The main loop as a swift-service-lifecycle `Service`: it starts with the rest of the service, reports its metrics,
/// and drains gracefully when the service group shuts down.
///
/// All operations on `MainLoopService` are thread-safe; ``run()`` is called by the `ServiceGroup`.
///
/// ``run()`` hosts the loop as a guest (the group's `async` main owns the main thread) and suspends until graceful
/// shutdown, cancellation of its task, or the loop stopping on its own. Then it drains the loop the way
/// `MainLoop.stop()` always does — posts are refused (`post` returns `false`) while the work already posted runs,
/// settle delivers what is pending, the hooks registered with `MainLoop.onShutdown(_:)` run, every handle is closed —
/// and returns once the loop has stopped.
///
/// ```swift
/// let loop = MainLoopService(logger: logger)
/// let group = ServiceGroup(
///     configuration: .init(
///         services: [.init(service: loop), .init(service: httpServer)],
///         gracefulShutdownSignals: [.sigterm, .sigint],
///         logger: logger
///     )
/// )
/// try await group.run()
/// ```
///
/// List the loop **first**: a service group shuts its services down in reverse order, so the loop drains last,
/// after the services that post into it.
///
/// With a `drainDeadline`, the drain is bounded: posted work that has not started when it passes is released unrun
/// and reported (`MainLoop.stop(drainDeadline:)`), so the time to exit after SIGTERM does not grow with a backlog.
public final class MainLoopService: Service, Sendable {
    /// The loop the service runs.
    public let loop: MainLoop
    /// How long the drain at shutdown may run posted work; `nil`: until all of it has run.
    public let drainDeadline: Duration?
    private let instrumentation: LoopInstrumentation?
    private let logger: Logger

    /// Creates the service, reporting the loop's metrics through `metricsFactory`.
    ///
    /// - Parameters:
    ///   - loop: The loop to run; the process's main loop.
    ///   - metricsFactory: Where the loop's metrics go (see `LoopInstrumentation`); the bootstrapped
    ///     `MetricsSystem.factory` by default.
    ///   - logger: Where the service logs starting and stopping, and the watchdog logs stalls.
    ///   - stallThreshold: How long one callback or iteration may hold the loop before the watchdog reports it;
    ///     `nil` (the default) starts no watchdog.
    ///   - drainDeadline: How long the drain at shutdown may run posted work before releasing the rest unrun;
    ///     `nil` (the default) runs all of it.
    public convenience init(
        loop: MainLoop = .main,
        metricsFactory: any MetricsFactory = MetricsSystem.factory,
        logger: Logger = Logger(label: "mainline.loop"),
        stallThreshold: Duration? = nil,
        drainDeadline: Duration? = nil
    ) {
        self.init(
            loop: loop,
            instrumentation: LoopInstrumentation(
                metricsFactory: metricsFactory,
                logger: logger,
                watchdog: stallThreshold.map { LoopWatchdog(threshold: $0) }
            ),
            logger: logger,
            drainDeadline: drainDeadline
        )
    }

    /// Creates the service with an instrumentation of your own, or none.
    ///
    /// - Parameters:
    ///   - loop: The loop to run.
    ///   - instrumentation: Installed on the loop when ``run()`` starts; `nil` leaves the loop's instrumentation as
    ///     it is.
    ///   - logger: Where the service logs starting and stopping.
    ///   - drainDeadline: How long the drain at shutdown may run posted work before releasing the rest unrun;
    ///     `nil` (the default) runs all of it.
    public init(
        loop: MainLoop = .main,
        instrumentation: LoopInstrumentation?,
        logger: Logger,
        drainDeadline: Duration? = nil
    ) {
        self.loop = loop
        self.instrumentation = instrumentation
        self.logger = logger
        self.drainDeadline = drainDeadline
    }

    /// Hosts the loop until graceful shutdown, then drains it and returns once it has stopped.
    ///
    /// Called by the `ServiceGroup` (or directly, from any task). Returns early, without error, if the loop is
    /// stopped by someone else. Cancelling the task drains the loop the same way as a graceful shutdown.
    ///
    /// - Throws: Never; `throws` is the `Service` requirement.
    public func run() async throws {
        let loop = self.loop
        loop.attachAsGuest()
        if let instrumentation {
            await MainActor.run { loop.instrument(instrumentation) }
        }
        logger.debug("Main loop service running", metadata: ["state": "\(loop.state)"])
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Throws only when cancelled: either way, the loop stops next.
                try? await gracefulShutdown()
            }
            group.addTask { await loop.waitUntilStopped() }
            await group.next()
            if let drainDeadline { loop.stop(drainDeadline: drainDeadline) } else { loop.stop() }
            group.cancelAll()
        }
        await loop.waitUntilStopped()
        logger.debug("Main loop service stopped")
    }
}
