import Foundation
import Logging
import Mainline
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The TCP side of the server, as a `Service`: listens on 127.0.0.1, and on graceful shutdown stops accepting,
/// gives every client ``flushDeadline`` to take what is queued for it, closes every connection and returns.
///
/// Each connection's ``CommandBacklog`` stops reading a client while the loop is behind on its commands, so the loop
/// never holds more than ``CommandBacklog/State/limit`` commands per client: a client that publishes as fast as it
/// can neither grows the server's memory nor delays another client's answer, or the shutdown, by more than that.
struct PubSubServer: Service {
    let port: Int
    let flushDeadline: Duration
    let broker: Broker
    /// The longest line a client may send (`--max-line-bytes`).
    let maximumLineLength: Int
    let logger: Logger

    /// A client's kernel send buffer, in bytes: small, so that a client that stops reading is noticed after a few
    /// kilobytes rather than megabytes, and what waits for it is the latest message per topic, not a backlog.
    static let sendBufferSize = 16 * 1_024

    func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let broker = self.broker
        let maximumLineLength = self.maximumLineLength
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.so_sndbuf), value: SocketOptionValue(Self.sendBufferSize))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let backlog = CommandBacklog(channel: channel)
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(LineDecoder(limit: maximumLineLength, backlog: backlog))
                    )
                    try channel.pipeline.syncOperations.addHandler(
                        ClientChannelHandler(broker: broker, backlog: backlog)
                    )
                }
            }
            .bind(host: "127.0.0.1", port: port)
            .get()
        let address = listener.localAddress.map { "\($0.ipAddress ?? "127.0.0.1"):\($0.port ?? port)" } ?? "?"
        logger.info("listening", metadata: ["address": "\(address)"])
        // Written at once (print is block-buffered into a pipe): whoever waits for this line gets it now.
        FileHandle.standardOutput.write(Data("pubsub-server: listening on \(address)\n".utf8))

        // Until SIGTERM or SIGINT (the service group turns them into graceful shutdown).
        try? await gracefulShutdown()

        logger.info("shutting down: no new clients; flushing", metadata: ["deadline": "\(flushDeadline)"])
        try? await listener.close()
        await broker.shutDown(deadline: flushDeadline)
        try await group.shutdownGracefully()
        FileHandle.standardOutput.write(Data("pubsub-server: stopped\n".utf8))
    }
}
