#if Postgres
import Logging
import PostgresNIO
import Testing
import _MainlineTestSupport

@testable import MainlinePostgres

/// The wrapper every reader query goes through: it keeps nothing per query once the query is answered (a reader runs
/// hundreds of rounds a second on one connection, for days), and fails a query still waiting when its connection
/// closes.
@Suite("queryUnlessClosed: one close watch per connection")
struct QueryUnlessClosedTests {
    @Test func answeredQueriesLeaveNothingBehindAndAClosedConnectionFailsTheNextOne() async throws {
        try await PostgresTestCluster.with { cluster in
            let logger = Logger(label: "test.query-unless-closed")
            let connection = try await PostgresConnection.connect(
                configuration: cluster.configuration,
                id: 1,
                logger: logger
            )
            for _ in 0..<200 { _ = try await connection.queryUnlessClosed("SELECT 1", logger: logger) }
            let watch = _CloseWatch.watch(for: connection)
            #expect(watch.waitingCount == 0, "nothing kept per answered query")
            try await connection.close()
            #expect(watch.isClosed)
            let error = await #expect(throws: StreamError.self) {
                _ = try await connection.queryUnlessClosed("SELECT 1", logger: logger)
            }
            guard case .connectionEnded = error else {
                Issue.record("expected connectionEnded, got \(String(describing: error))")
                return
            }
        }
    }
}
#endif
