import NIOCore

/// What a ``ClientConnection`` does to its client's socket: write, read or stop reading, close, and retry a refused
/// write-completion report. The server's is the client's SwiftNIO channel (``NIOClientSocket``); a test's records what
/// it is asked and completes writes when the test says the kernel took them.
///
/// All operations on a `ClientSocket` are thread-safe: the connection calls them on the main actor, and the socket
/// does the work on its own thread.
protocol ClientSocket: Sendable {
    /// What the connection writes: SwiftNIO's buffer, named here so that a test's socket needs no SwiftNIO import.
    typealias Bytes = ByteBuffer

    /// Hands `buffer` to the socket; `completed` runs, on any thread, once all of it reached the kernel (`true`) or the
    /// write failed (`false`): either way it is no longer in flight.
    func write(_ buffer: Bytes, completed: @escaping @Sendable (_ written: Bool) -> Void)
    /// Reads the client's command lines while `reading` is `true`; stops reading them while it is `false`.
    func setReading(_ reading: Bool)
    /// Closes the connection; the broker then hears that the client disconnected.
    func close()
    /// Runs an attempt to post a refused write-completion report again, after a delay, on the socket's own thread
    /// (see ``WriteLedger``).
    var retry: WriteLedger.Retry { get }
}

/// A client's SwiftNIO channel as its ``ClientSocket``. Whether the channel is read is up to its ``CommandBacklog``
/// too: the connection's ``setReading(_:)`` is one of the two conditions it reads the client under.
///
/// All operations on `NIOClientSocket` are thread-safe (a channel and a backlog are).
struct NIOClientSocket: ClientSocket {
    let channel: any Channel
    /// The client's commands on their way to the loop.
    let backlog: CommandBacklog

    func write(_ buffer: Bytes, completed: @escaping @Sendable (_ written: Bool) -> Void) {
        channel.writeAndFlush(buffer).whenComplete { result in
            if case .success = result { completed(true) } else { completed(false) }
        }
    }

    func setReading(_ reading: Bool) {
        backlog.setReading(reading)
    }

    func close() {
        channel.close(promise: nil)
    }

    var retry: WriteLedger.Retry {
        let eventLoop = channel.eventLoop
        return { delay, attempt in _ = eventLoop.scheduleTask(in: TimeAmount(delay)) { attempt() } }
    }
}
