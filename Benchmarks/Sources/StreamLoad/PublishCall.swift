import Logging
import MainlinePostgres
import PostgresNIO
import StreamWire

/// One publishing call of a peer: returns when the events committed (one, or a batch in one call).
typealias PublishCall = @Sendable ([Stamp]) async throws -> Void

/// The publishing call of `peer`, through `client`'s pool.
///
/// - Parameters:
///   - peer: Which peer publishes.
///   - client: The pool (running).
///   - target: The stream's name (Mainline) or the channel (`NOTIFY`).
/// - Returns: The call.
func publishCall(of peer: Peer, through client: PostgresClient, to target: String) -> PublishCall {
    switch peer {
    case .mainline, .batched:
        let publisher = StreamPublisher(client: client)
        return { stamps in
            if stamps.count == 1 {
                try await publisher.publish(ByteBuffer(string: stamps[0].text), to: target)
            } else {
                try await publisher.publish(
                    contentsOf: stamps.map { StreamPublisher.Message(ByteBuffer(string: $0.text)) },
                    to: target
                )
            }
        }
    case .notify:
        let logger = Logger(label: "stream-load")
        // The same kind of call as StreamPublisher.publish: a connection from the pool, one statement.
        return { stamps in
            for stamp in stamps {
                try await client.withConnection { connection in
                    let payload = stamp.text
                    try await connection.query("SELECT pg_notify(\(target), \(payload))", logger: logger)
                }
            }
        }
    }
}
