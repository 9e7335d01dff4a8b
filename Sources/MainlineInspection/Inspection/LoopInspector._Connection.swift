import MainlineLoop
import MainlineLoopCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension LoopInspector {
    /// One client of the inspector: the bytes of its next request line, and the answer still to write.
    ///
    /// `_Connection` is **not** thread-safe: the inspector's thread owns it.
    ///
    /// A connection reads a request only once the answer to the previous one is written, so a client that sends and
    /// never reads fills its own socket buffers, not the inspector's memory: at most one answer and one request line
    /// wait for it here.
    final class _Connection {
        /// The socket: non-blocking, close-on-exec.
        let descriptor: Int32
        /// The bytes of a request line whose line break has not arrived yet.
        private var input: [UInt8] = []
        /// Bytes of answers not yet written, from `outputStart`.
        private var output: [UInt8] = []
        private var outputStart = 0
        /// Discarding the rest of a line that was too long, up to its line break.
        private var isSkippingLine = false
        /// Close once everything is written: a refused client, or one whose peer stopped sending.
        private(set) var closesWhenWritten = false
        /// When the connection was accepted, a write last made progress, or the current (or last) request line began
        /// (monotonic nanoseconds); the timeouts count from it.
        private(set) var lastProgress: UInt64

        init(descriptor: Int32, now: UInt64) {
            self.descriptor = descriptor
            self.lastProgress = now
        }

        deinit {
            // Reads (a bounded amount of) what the client sent and nobody will answer: a socket closed with unread
            // bytes makes the kernel reset the connection, and a refused client would then read ECONNRESET after its
            // refusal line instead of the end of the stream.
            var scrap = [UInt8](repeating: 0, count: 4_096)
            var reads = 0
            while reads < 64,
                scrap.withUnsafeMutableBytes({ recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0
            {
                reads += 1
            }
            close(descriptor)
        }

        /// Whether an answer waits to be written (the inspector then polls for writability, not for requests).
        var isWriting: Bool { outputStart < output.count }

        /// What a connection waits for; each has a timeout (`_Limits.limit(_:)`), counted from ``lastProgress``.
        enum _Wait {
            /// The client to read the answer waiting to be written.
            case reader
            /// The rest of a request line that has begun.
            case restOfRequest
            /// A request: the client is attached and has asked everything it asked.
            case request
        }

        /// What the connection waits for now.
        var waitingFor: _Wait { isWriting ? .reader : hasPartialRequest ? .restOfRequest : .request }

        /// Whether part of a request line has arrived and the rest has not.
        var hasPartialRequest: Bool { !input.isEmpty || isSkippingLine }

        /// Whether requests wait to be answered (behind an answer still being written).
        var hasQueuedRequests: Bool { queued < requests.count }

        /// One request line, as read.
        enum _Request {
            /// A line, without its line break (and without a carriage return before it).
            case line([UInt8])
            /// A line longer than the limit; its bytes were not kept.
            case tooLong
        }

        /// Queues `line` and a line break to be written.
        func send(_ line: String) {
            if outputStart == output.count {
                output.removeAll(keepingCapacity: output.capacity <= 65_536)
                outputStart = 0
            }
            output.append(contentsOf: line.utf8)
            output.append(UInt8(ascii: "\n"))
        }

        /// Queues `line`, and closes the connection once it is written.
        func refuse(_ line: String) {
            send(line)
            closesWhenWritten = true
        }

        /// Writes what it can without blocking.
        ///
        /// - Parameter now: Monotonic nanoseconds, recorded when a write makes progress.
        /// - Returns: `false` when the connection is over: its peer is gone, or it was refused and the refusal is
        ///   written.
        func write(now: UInt64) -> Bool {
            while outputStart < output.count {
                let written = output.withUnsafeBytes { buffer in
                    sendWithoutSignal(descriptor, buffer.baseAddress! + outputStart, buffer.count - outputStart)
                }
                if written > 0 {
                    outputStart += written
                    lastProgress = now
                } else if written < 0 && errno == EINTR {
                    continue
                } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    return true
                } else {
                    return false  // EPIPE, ECONNRESET: the client is gone
                }
            }
            return !closesWhenWritten
        }

        /// Reads what has arrived and answers each complete request line with `answer`, while no answer waits to be
        /// written (what was read stays queued until it is; reading resumes after).
        ///
        /// - Parameters:
        ///   - maximumLineBytes: The longest request line; a longer one is answered with `.tooLong`, and the rest of
        ///     it is skipped up to its line break.
        ///   - now: Monotonic nanoseconds, the start of a partial request's timeout.
        ///   - answer: Called with each request, in order; returns the answer line.
        /// - Returns: `false` when the peer has closed its end or the socket failed.
        func read(maximumLineBytes: Int, now: UInt64, answer: (_Request) -> String) -> Bool {
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while !isWriting {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count > 0 {
                    if !hasPartialRequest { lastProgress = now }
                    take(buffer[0..<count], maximumLineBytes: maximumLineBytes)
                    answerQueued(answer)
                } else if count < 0 && errno == EINTR {
                    continue
                } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    return true
                } else {
                    // 0: the peer closed its end, mid-line or not; what it did not finish is not answered.
                    return false
                }
            }
            return true
        }

        /// Answers the requests already queued, while no answer waits to be written. Called again once an answer is
        /// written.
        func answerQueued(_ answer: (_Request) -> String) {
            while !isWriting, queued < requests.count {
                let request = requests[queued]
                queued += 1
                send(answer(request))
            }
            if queued == requests.count {
                requests.removeAll(keepingCapacity: true)
                queued = 0
            }
        }

        /// Splits `bytes` into request lines (queued), keeping a partial last line; a partial line longer than
        /// `maximumLineBytes` is queued as `.tooLong` and the rest of it skipped.
        private func take(_ bytes: ArraySlice<UInt8>, maximumLineBytes: Int) {
            var rest = bytes
            while !rest.isEmpty {
                let end = rest.firstIndex(of: UInt8(ascii: "\n"))
                if isSkippingLine {
                    guard let end else { return }
                    isSkippingLine = false
                    rest = rest[(end + 1)...]
                    continue
                }
                guard let end else {
                    input.append(contentsOf: rest)
                    if input.count > maximumLineBytes {
                        input.removeAll()
                        requests.append(.tooLong)
                        isSkippingLine = true
                    }
                    return
                }
                input.append(contentsOf: rest[..<end])
                rest = rest[(end + 1)...]
                if input.last == UInt8(ascii: "\r") { input.removeLast() }
                if input.count > maximumLineBytes {
                    requests.append(.tooLong)
                } else if !input.isEmpty {  // a blank line asks nothing
                    requests.append(.line(input))
                }
                input.removeAll(keepingCapacity: true)
            }
        }

        /// Request lines read and not yet answered, from `queued`. At most what one read holds: reading stops while
        /// an answer waits to be written.
        private var requests: [_Request] = []
        private var queued = 0
    }
}

/// `send(2)` without `SIGPIPE` (a client that went away must not end the process); named apart from
/// `_Connection.send(_:)`.
private func sendWithoutSignal(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
}
