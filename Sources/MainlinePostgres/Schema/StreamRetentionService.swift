#if Postgres
import CoreMetrics
import Logging
import ServiceLifecycle

/// Applies a ``StreamRetention`` every ``interval``, as a service: the periodic pruning the tables need.
///
/// All operations on `StreamRetentionService` are thread-safe (it is a value).
///
/// It prunes once when it starts, then after every interval, until the task is cancelled or, in a `ServiceGroup`, a
/// graceful shutdown begins; then it returns. A prune that fails (the database is down) is logged and tried again
/// at the next interval, never thrown. Several processes may each run one on the same tables: deleting is
/// idempotent, so the only cost is the repeated statements.
///
/// ```swift
/// let retention = StreamRetentionService(
///     publisher: publisher,
///     retention: StreamRetention(maximumAge: .seconds(86_400), maximumCount: 100_000),
///     interval: .seconds(60)
/// )
/// let group = ServiceGroup(services: [client, retention], logger: logger)
/// ```
public struct StreamRetentionService: Service {
    /// Whose tables it prunes (its schema and pool).
    public let publisher: StreamPublisher
    /// What each stream keeps.
    public let retention: StreamRetention
    /// The time from the end of one prune to the start of the next.
    public let interval: Duration
    private let logger: Logger
    private let metricsFactory: any MetricsFactory

    /// Creates the service; nothing is pruned until ``run()``.
    ///
    /// - Parameters:
    ///   - publisher: Whose tables it prunes; its pool must run while this service runs.
    ///   - retention: What each stream keeps.
    ///   - interval: The time between prunes.
    ///   - logger: Where it logs what it deleted (debug) and failures (warning).
    ///   - metricsFactory: Where `mainline_stream_pruned` (events deleted) goes. The global `MetricsSystem` unless a
    ///     test passes its own.
    public init(
        publisher: StreamPublisher,
        retention: StreamRetention,
        interval: Duration = .seconds(60),
        logger: Logger = Logger(label: "mainline.postgres.retention"),
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.publisher = publisher
        self.retention = retention
        self.interval = interval
        self.logger = logger
        self.metricsFactory = metricsFactory
    }

    /// Prunes now and after every ``interval`` until cancelled or shut down gracefully. Call it from any task.
    public func run() async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let deleted = try await publisher.prune(retention)
                    Counter(label: "mainline_stream_pruned", factory: metricsFactory).increment(by: deleted)
                    logger.debug("stream retention: pruned", metadata: ["deleted": "\(deleted)"])
                } catch {
                    if Task.isCancelled { return }
                    logger.warning(
                        "stream retention: prune failed; trying again later",
                        metadata: ["error": "\(error)"]
                    )
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
#endif
