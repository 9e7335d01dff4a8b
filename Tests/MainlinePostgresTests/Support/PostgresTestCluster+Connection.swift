#if Postgres
import Logging
import PostgresNIO
import _MainlineTestSupport

/// What the library's own tests add to the shared throwaway cluster: postgres-nio connections to it.
extension PostgresTestCluster {
    /// The cluster's database as postgres-nio connects to it: no password, no TLS.
    var configuration: PostgresConnection.Configuration {
        PostgresConnection.Configuration(
            host: host,
            port: port,
            username: user,
            password: nil,
            database: database,
            tls: .disable
        )
    }

    /// Runs `body` on a connection of its own, closed afterwards.
    func withConnection<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let connection = try await PostgresConnection.connect(
            configuration: configuration,
            id: 0,
            logger: Logger(label: "test.admin")
        )
        do {
            let result = try await body(connection)
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
#endif
