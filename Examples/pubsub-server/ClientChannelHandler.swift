import Mainline
import NIOCore

/// The SwiftNIO end of one client: parses each line on the connection's NIO thread and posts the result into the
/// main loop. Everything about the client lives in the ``Broker``; the handler counts the commands it posted in the
/// client's ``CommandBacklog``, which stops reading the client while the loop is behind on them.
///
/// Posts from one NIO thread run on the loop in the order they were posted, so a client's connect, commands and
/// disconnect reach the broker in order.
///
/// A command the loop refuses is never dropped unsaid: when the loop has stopped the server is going away and closes
/// every connection; when it is full (`LoopBudgets.maxPendingPosts`, which this server does not set) the client is
/// told `ERR server busy` and closed.
final class ClientChannelHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = InboundLine

    let broker: Broker
    let backlog: CommandBacklog

    /// The handler of one connection, whose commands `backlog` counts.
    init(broker: Broker, backlog: CommandBacklog) {
        self.broker = broker
        self.backlog = backlog
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        let (broker, backlog) = (self.broker, self.backlog)
        MainLoop.main.post(label: "pubsub: client connected") { broker.connected(channel, backlog: backlog) }
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
            let backlog = self.backlog
            // Counted before the post: the loop may run the command (and count it finished) before `tryPost` returns.
            backlog.posted()
            let site = LoopSite(label: "pubsub: command")
            switch MainLoop.main.tryPost({ broker.received(parsed, from: id, backlog: backlog) }, from: site) {
            case .accepted:
                break
            case .full:
                backlog.finished()
                let channel = context.channel
                channel.writeAndFlush(ByteBuffer(string: "ERR server busy\n")).whenComplete { _ in
                    channel.close(promise: nil)
                }
            case .stopped:
                backlog.finished()
            }
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
