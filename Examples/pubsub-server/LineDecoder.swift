import NIOCore

/// One line read from a client, or the news that the client sent a line longer than the limit.
enum InboundLine: Sendable {
    case line(ByteBuffer)
    case tooLong
}

/// Splits a client's bytes into lines at `\n`, never holding more than its limit (`--max-line-bytes`) of an
/// unfinished line. Runs on the connection's SwiftNIO thread.
///
/// Past the limit it emits `.tooLong` once and discards everything after it: the server answers `ERR` and closes.
///
/// While the client's ``CommandBacklog`` is full it hands on nothing: the lines stay in SwiftNIO's buffer until the
/// loop has caught up (the backlog then makes it look again). At the end of the input it hands on every complete line
/// left, full or not: what the client sent before it left is performed, and is at most one read's worth.
struct LineDecoder: ByteToMessageDecoder {
    typealias InboundOut = InboundLine

    let limit: Int
    /// The client's backlog, which says whether another line may go; `nil` hands on every line at once.
    let backlog: CommandBacklog?
    private var discarding = false

    init(limit: Int = Command.defaultMaximumLineLength, backlog: CommandBacklog? = nil) {
        self.limit = limit
        self.backlog = backlog
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if let backlog, !backlog.mayDecode { return .needMoreData }
        return decodeLine(context: context, buffer: &buffer)
    }

    /// Hands on the next line of `buffer`, if it holds a whole one.
    private mutating func decodeLine(context: ChannelHandlerContext, buffer: inout ByteBuffer) -> DecodingState {
        if discarding {
            buffer.moveReaderIndex(to: buffer.writerIndex)
            return .needMoreData
        }
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > limit { tooLong(context: context, buffer: &buffer) }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        guard length <= limit else {
            tooLong(context: context, buffer: &buffer)
            return .needMoreData
        }
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(wrapInboundOut(.line(line)))
        return .continue
    }

    mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        while decodeLine(context: context, buffer: &buffer) == .continue {}
        // An unfinished last line at end of input is dropped: a line ends with its line break.
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }

    private mutating func tooLong(context: ChannelHandlerContext, buffer: inout ByteBuffer) {
        discarding = true
        buffer.moveReaderIndex(to: buffer.writerIndex)
        context.fireChannelRead(wrapInboundOut(.tooLong))
    }
}
