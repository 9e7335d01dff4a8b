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
struct LineDecoder: ByteToMessageDecoder {
    typealias InboundOut = InboundLine

    let limit: Int
    private var discarding = false

    init(limit: Int = Command.defaultMaximumLineLength) {
        self.limit = limit
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
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
        while try decode(context: context, buffer: &buffer) == .continue {}
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
