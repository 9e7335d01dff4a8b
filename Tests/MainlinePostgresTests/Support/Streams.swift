#if Postgres
import CoreMetrics
import Logging
import MainlinePostgres
import PostgresNIO
import Testing
import _MainlineTestSupport

/// Options for tests: failures are noticed and retried within a fraction of a second, and nothing is read without a
/// hint or a (re)connect unless a test asks (a poll would hide a missing catch-up).
///
/// The health check runs every 200 ms but gives a healthy connection 30 s to answer: on a loaded machine (the whole
/// suite in one process on two cores, ThreadSanitizer) a `SELECT 1` took longer than 2 s, the check replaced a healthy
/// connection, and a test that counts what one connection saw (the bad-input test's hints, sent while the replacement
/// was connecting) failed. The test of the health check itself sets its own tight timeout.
func testOptions(_ change: (inout StreamSubscriber.Options) -> Void = { _ in }) -> StreamSubscriber.Options {
    var options = StreamSubscriber.Options()
    options.healthCheckInterval = .milliseconds(200)
    options.healthCheckTimeout = .seconds(30)
    options.initialReconnectDelay = .milliseconds(50)
    options.maximumReconnectDelay = .milliseconds(400)
    options.pollInterval = .seconds(3_600)
    change(&options)
    return options
}

/// Publisher options for tests that are not about deadlines: the default 10 s deadline, generous on a service,
/// is not on a 2-core machine whose first minute of tests starts dozens of clusters at once (CI saw first publishes
/// refused after 10 s there, and the test was not about that). Deadline tests pass their own `timeout:`.
func testPublisherOptions() -> StreamPublisher.Options {
    var options = StreamPublisher.Options()
    options.publishTimeout = .seconds(300)
    return options
}

/// Runs `body` with a publisher whose connection pool runs beside it.
@MainActor
@discardableResult
func withPublisher<T>(
    _ cluster: PostgresTestCluster,
    schema: StreamSchema = .default,
    options: StreamPublisher.Options = testPublisherOptions(),
    metricsFactory: any MetricsFactory = MetricsSystem.factory,
    _ body: @MainActor (StreamPublisher) async throws -> T
) async throws -> T {
    let client = PostgresClient(
        configuration: PostgresClient.Configuration(
            host: "127.0.0.1",
            port: cluster.port,
            username: "postgres",
            password: nil,
            database: cluster.database,
            tls: .disable
        )
    )
    let running = Task { await client.run() }
    defer { running.cancel() }
    return try await body(
        StreamPublisher(client: client, schema: schema, options: options, metricsFactory: metricsFactory)
    )
}

/// Publishes events `e1` … `e<count>` to `stream` from `callers` concurrent tasks, caller `c` publishing `c + 1`,
/// `c + 1 + callers`, …, one event per `publish` call, so that their commits interleave with whatever reads the stream.
func publishConcurrently(
    _ count: Int,
    to stream: String,
    callers: Int = 8,
    through publisher: StreamPublisher
) async throws {
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        for caller in 0..<callers {
            tasks.addTask {
                for index in stride(from: caller + 1, through: count, by: callers) {
                    try await publisher.publish(bytes: Array("e\(index)".utf8), to: stream)
                }
            }
        }
        try await tasks.waitForAll()
    }
}

/// Subscribes a new collector to `stream` (text, from its start) and runs `body` with it once the subscriber listens
/// (its tables exist then); returns the collector.
@MainActor
func whileListening(
    to stream: String,
    on cluster: PostgresTestCluster,
    _ body: @MainActor (Collector) async throws -> Void
) async throws -> Collector {
    let subscriber = StreamSubscriber(configuration: cluster.configuration, options: testOptions())
    let collector = Collector()
    _ = try subscriber.subscribe(to: stream, from: .after(0), into: collector.mailbox, decode: decodeText)
    try await whileRunning(subscriber) {
        try await waitUntil("listening (and the tables created)") { subscriber.counts.isConnected }
        try await body(collector)
    }
    return collector
}

/// Runs `subscriber` until `body` returns or throws, then stops it.
@MainActor
func whileRunning<T>(_ subscriber: StreamSubscriber, _ body: @MainActor () async throws -> T) async throws -> T {
    let running = Task { try await subscriber.run() }
    defer { running.cancel() }
    let result = try await body()
    running.cancel()
    _ = await running.result
    return result
}
#endif
