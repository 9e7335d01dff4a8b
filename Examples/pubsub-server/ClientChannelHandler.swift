import Mainline
import NIOCore

/// The SwiftNIO end of one client: parses each line on the connection's NIO thread and posts the result into the
/// main loop. It keeps no state of its own; everything about the client lives in the ``Broker``.
///
/// Posts from one NIO thread run on the loop in the order they were posted, so a client's connect, commands and
/// disconnect reach the broker in order.
final class ClientChannelHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = InboundLine

    let broker: Broker

    init(broker: Broker) {
        self.broker = broker
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        let broker = self.broker
        MainLoop.main.post(label: "pubsub: client connected") { broker.connected(channel) }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let id = ObjectIdentifier(context.channel)
        let broker = self.broker
        switch unwrapInboundIn(data) {
        case .line(let bytes):
            let parsed: Result<Command, Command.ParseError>
            do throws(Command.ParseError) {
                guard let command = try Command.parse(bytes.readableBytesView) else { return }  // a blank line
                parsed = .success(command)
            } catch {
                parsed = .failure(error)
            }
            MainLoop.main.post(label: "pubsub: command") { broker.received(parsed, from: id) }
        case .tooLong:
            MainLoop.main.post(label: "pubsub: line too long") { broker.lineTooLong(from: id) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let id = ObjectIdentifier(context.channel)
        let broker = self.broker
        MainLoop.main.post(label: "pubsub: client disconnected") { broker.disconnected(id) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
