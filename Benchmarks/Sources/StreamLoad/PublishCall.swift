import Logging
import MainlinePostgres
import PostgresNIO
import StreamWire

/// One publishing call of a peer: returns when the event committed.
typealias PublishCall = @Sendable (Stamp) async throws -> Void

/// The publishing call of `peer`, through `client`'s pool.
///
/// - Parameters:
///   - peer: Which peer publishes.
///   - client: The pool (running).
///   - target: The stream's name (Mainline) or the channel (`NOTIFY`).
/// - Returns: The call.
func publishCall(of peer: Peer, through client: PostgresClient, to target: String) -> PublishCall {
    switch peer {
    case .mainline:
        let publisher = StreamPublisher(client: client)
        return { stamp in
            try await publisher.publish(ByteBuffer(string: stamp.text), to: target)
        }
    case .notify:
        let logger = Logger(label: "stream-load")
        // The same kind of call as StreamPublisher.publish: a connection from the pool, one statement.
        return { stamp in
            try await client.withConnection { connection in
                let payload = stamp.text
                try await connection.query("SELECT pg_notify(\(target), \(payload))", logger: logger)
            }
        }
    }
}
