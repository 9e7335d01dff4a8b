import Foundation
import NIOCore

/// One client's commands between its SwiftNIO thread and the main loop: how many were posted and have not finished,
/// and whether the client's socket is read. The server stops reading a client whose commands the loop has not caught
/// up with, so that a client publishing faster than the loop runs costs a bounded amount of memory, and the commands
/// of every other client wait behind at most ``State/limit`` of its.
///
/// All operations on `CommandBacklog` are thread-safe: ``posted()`` and ``mayDecode`` are called on the channel's
/// event loop (by ``ClientChannelHandler`` and ``LineDecoder``), ``finished()`` on the main actor once a command ran
/// (in cluster mode, once it left the ``CommandQueue``), ``setReading(_:)`` by the ``ClientConnection`` on the main
/// actor (through ``NIOClientSocket``).
///
/// The bound: at most ``State/limit`` commands of a client wait for the loop or in its ``CommandQueue``; the line
/// decoder stops at the limit, leaving what the socket already delivered in SwiftNIO's buffer (the bytes of one read,
/// at most `maxMessagesPerRead` (4) times 64 KiB, plus an unfinished line), and the socket is not read again until
/// the loop has run the client's commands down to ``State/resumeMark``. The kernel holds the rest, and the client's
/// sends block.
final class CommandBacklog: @unchecked Sendable {
    // @unchecked Sendable: `state` is read and written only while `lock` is held; `channel` is immutable and Sendable.
    private let lock = NSLock()
    private var state = State()
    private let channel: any Channel

    /// The backlog of `channel`'s client: nothing posted, reading.
    init(channel: any Channel) {
        self.channel = channel
    }

    /// Whether the line decoder may hand on another command: the backlog is below its limit. Call it on the
    /// channel's event loop.
    var mayDecode: Bool { lock.withLock { state.decodes } }

    /// Commands posted and not yet finished. Thread-safe.
    var waiting: Int { lock.withLock { state.waiting } }

    /// A command was posted to the loop. Call it on the channel's event loop, after the post was accepted.
    func posted() {
        apply(lock.withLock { state.posted() })
    }

    /// A posted command finished on the loop (or was never run: the loop refused it). Call it on any thread.
    func finished() {
        apply(lock.withLock { state.finished() })
    }

    /// Reads the client while `reading` is `true` and the backlog allows; stops reading it while `reading` is `false`.
    /// Call it on any thread.
    func setReading(_ reading: Bool) {
        apply(lock.withLock { state.setReading(reading) })
    }

    /// Carries out `action` on the channel's event loop: at once when called there, else by a task on it. Each
    /// carries out the state as it is then, not as it was when the action was returned, so that the last one applied
    /// always leaves the socket as the latest state says, whatever order they run in.
    private func apply(_ action: State.Action) {
        guard action != .unchanged else { return }
        if channel.eventLoop.inEventLoop {
            applyNow(action)
        } else {
            channel.eventLoop.execute { self.applyNow(action) }
        }
    }

    private func applyNow(_ action: State.Action) {
        let (reads, decodes) = lock.withLock { (state.reads, state.decodes) }
        guard channel.isActive, let options = channel.syncOptions else { return }
        try? options.setOption(ChannelOptions.autoRead, value: reads)
        if action == .resume, decodes {
            // The decoder stopped with lines in SwiftNIO's buffer, and nothing else makes it look again (the client
            // may have sent nothing since): an empty read does.
            channel.pipeline.syncOperations.fireChannelRead(NIOAny(ByteBuffer()))
        }
    }
}

extension CommandBacklog {
    /// The backlog's state: the events that change it return what must happen to the socket. Thread-confined to
    /// whoever holds it (the ``CommandBacklog``'s lock); no I/O.
    struct State: Equatable {
        /// How many of a client's commands may wait before the server stops reading it.
        static let limit = 256
        /// The backlog at or below which a client that was stopped is read again: a quarter of ``limit``.
        static let resumeMark = limit / 4

        /// Commands posted and not yet finished.
        private(set) var waiting = 0
        /// Whether the backlog reached ``limit`` and has not yet come down to ``resumeMark``.
        private(set) var isFull = false
        /// Whether the connection wants the client read (it is taking bytes, and not closing).
        private(set) var wantsReading = true

        /// What must happen to the socket after an event.
        enum Action: Equatable {
            /// Nothing changed.
            case unchanged
            /// Set reading to ``reads``.
            case applyReading
            /// The backlog came down: set reading to ``reads``, and decode the lines already read.
            case resume
        }

        /// Whether the socket is read.
        var reads: Bool { wantsReading && !isFull }
        /// Whether the line decoder may hand on another command.
        var decodes: Bool { !isFull }

        /// A command was posted: at ``limit``, the decoder stops and the socket is no longer read.
        mutating func posted() -> Action {
            waiting += 1
            guard !isFull, waiting >= Self.limit else { return .unchanged }
            isFull = true
            return wantsReading ? .applyReading : .unchanged
        }

        /// A command finished: at ``resumeMark``, the decoder goes on and the socket is read again if wanted.
        mutating func finished() -> Action {
            guard waiting > 0 else { return .unchanged }
            waiting -= 1
            guard isFull, waiting <= Self.resumeMark else { return .unchanged }
            isFull = false
            return .resume
        }

        /// The connection wants the client read, or not.
        mutating func setReading(_ reading: Bool) -> Action {
            guard reading != wantsReading else { return .unchanged }
            wantsReading = reading
            return isFull ? .unchanged : .applyReading
        }
    }
}
