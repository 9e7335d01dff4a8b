import CMainlineShims
import MainlineLoop
import MainlineLoopCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension LoopInspector {
    /// What the inspector may be asked for, and how long it waits for a client.
    ///
    /// `_Limits` is a value type; all operations on it are thread-safe.
    package struct _Limits: Sendable {
        /// Clients connected at once; the next one gets one refusal line and is closed.
        package var clients = 16
        /// The longest request line, in bytes (without its line break).
        package var requestLineBytes = 4_096
        /// How long an answer may wait for a client to read any of it before the client is closed.
        package var stalledWrite: Duration = .seconds(10)
        /// How long a request line may stay unfinished before the client is told so and closed.
        package var unfinishedRequest: Duration = .seconds(10)
        /// How long a client may send nothing — since it attached, since its last answer was written, or since its
        /// last line (a blank one too) arrived — before it is told so and closed: attached clients take slots.
        package var idleClient: Duration = .seconds(10)

        /// How long a connection may wait for what it waits for, counted from its `lastProgress`.
        func limit(_ wait: _Connection._Wait) -> Duration {
            switch wait {
            case .reader: stalledWrite
            case .restOfRequest: unfinishedRequest
            case .request: idleClient
            }
        }

        /// The limits `LoopInspector.start(socketPath:)` serves with.
        package init() {}

        /// The defaults, but a client that asks nothing is kept for ten minutes: for the package's own tests that are
        /// not about that bound, whose pauses between requests last as long as a busy machine makes them (the whole
        /// suite under ThreadSanitizer paused one for more than 10 s, and the inspector closed it).
        package static var keepingSilentClients: Self {
            var limits = Self()
            limits.idleClient = .seconds(600)
            return limits
        }
    }

    /// The inspector's thread: one `poll` over the listening socket, its clients and a wake-up pipe; answers every
    /// request from the registry's describers, never touching a loop.
    ///
    /// All operations on `_Server` are thread-safe: ``wake()`` writes a byte to a pipe; everything else runs on the
    /// inspector's thread (``run()``), which owns the listener and the connections.
    final class _Server: @unchecked Sendable {
        // @unchecked Sendable: `listener` and `connections` are touched only by `run()`, on the inspector's thread;
        // the pipe's descriptors are constants, and `wake()` only writes to one.
        private var listener: _Listener?
        private var connections: [_Connection] = []
        /// Until when (monotonic nanoseconds) new connections wait in the kernel's queue: the process ran out of
        /// descriptors, and a listener polled meanwhile would wake `poll` at once, again and again.
        private var acceptingAgainAt: UInt64?
        private let wakeReader: Int32
        private let wakeWriter: Int32
        private let limits: _Limits
        private let answers: _Answers

        init(listener: _Listener, registry: _InspectionRegistry, limits: _Limits) throws(LoopInspectorError) {
            var pipe: [Int32] = [-1, -1]
            guard mainline_pipe_cloexec(&pipe) == 0 else {
                let code = errno
                let path = listener.path
                listener.closeAndRemove()
                throw .system(operation: "pipe", path: path, errno: code)
            }
            wakeReader = pipe[0]
            wakeWriter = pipe[1]
            _ = fcntl(wakeReader, F_SETFL, O_NONBLOCK)
            self.listener = listener
            self.limits = limits
            self.answers = _Answers(registry: registry, requestLineBytes: limits.requestLineBytes)
        }

        deinit {
            close(wakeReader)
            close(wakeWriter)
        }

        /// Asks ``run()`` to return. Thread-safe.
        func wake() {
            var byte: UInt8 = 1
            while write(wakeWriter, &byte, 1) < 0 && errno == EINTR {}
        }

        /// Serves until ``wake()``; then closes every connection and removes the socket file. On the inspector's
        /// thread only.
        func run() {
            guard let listenerDescriptor = listener?.descriptor else { return }
            var descriptors: [pollfd] = []
            while true {
                descriptors.removeAll(keepingCapacity: true)
                descriptors.append(pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0))
                let accepting = acceptingAgainAt.map { Self.now() >= $0 } ?? true
                if accepting { acceptingAgainAt = nil }
                descriptors.append(pollfd(fd: listenerDescriptor, events: accepting ? Int16(POLLIN) : 0, revents: 0))
                for connection in connections {
                    let events = connection.isWriting ? POLLOUT : POLLIN
                    descriptors.append(pollfd(fd: connection.descriptor, events: Int16(events), revents: 0))
                }
                let ready = poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds(now: Self.now()))
                // EINTR, ENOMEM: try again. Anything else means a descriptor of its own is bad: a bug, never spun on.
                if ready < 0 && errno != EINTR && errno != ENOMEM { break }
                if descriptors[0].revents != 0 { break }
                let now = Self.now()
                // Connections first (their indices match `descriptors`), then new ones.
                var open: [_Connection] = []
                open.reserveCapacity(connections.count)
                for (index, connection) in connections.enumerated() {
                    if serve(connection, events: descriptors[index + 2].revents, now: now) { open.append(connection) }
                }
                connections = open
                if descriptors[1].revents & Int16(POLLIN) != 0 { accept(on: listenerDescriptor, now: now) }
            }
            connections.removeAll()  // their deinits close them
            listener?.closeAndRemove()
            listener = nil
        }

        /// Reads, answers and writes what `events` allow; checks the timeouts.
        ///
        /// - Returns: Whether the connection stays open.
        private func serve(_ connection: _Connection, events: Int16, now: UInt64) -> Bool {
            if events & Int16(POLLERR | POLLNVAL) != 0 { return false }
            if connection.isWriting {
                if events & Int16(POLLOUT | POLLHUP) != 0 {
                    guard pump(connection, now: now) else { return false }
                }
            } else if events & Int16(POLLIN | POLLHUP) != 0 {
                let open = connection.read(maximumLineBytes: limits.requestLineBytes, now: now, answer: answers.answer)
                guard open, pump(connection, now: now) else { return false }
            }
            let wait = connection.waitingFor
            let limit = limits.limit(wait)
            guard now &- connection.lastProgress >= Self.nanoseconds(limit) else { return true }
            switch wait {
            case .reader:
                return false  // a client that never reads: it cannot be told, only closed
            case .restOfRequest:
                connection.refuse(
                    _Answers.error("the request line was not finished within \(limit); closing the connection")
                )
            case .request:
                connection.refuse(_Answers.error("no request within \(limit); closing the connection"))
            }
            return connection.write(now: now)
        }

        /// Writes answers and answers the requests queued behind them, until the socket takes no more or nothing is
        /// left.
        ///
        /// - Returns: Whether the connection stays open.
        private func pump(_ connection: _Connection, now: UInt64) -> Bool {
            while true {
                guard connection.write(now: now) else { return false }
                if connection.isWriting || !connection.hasQueuedRequests { return true }
                connection.answerQueued(answers.answer)
            }
        }

        /// Accepts every waiting connection: refuses a peer of another user and any client past the limit, each
        /// with one line.
        private func accept(on listenerDescriptor: Int32, now: UInt64) {
            while true {
                let descriptor = mainline_accept_cloexec_nonblocking(listenerDescriptor)
                if descriptor < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                        // Out of descriptors or memory: the waiting clients stay queued; try again in 100 ms.
                        acceptingAgainAt = now &+ 100_000_000
                    }
                    return  // EAGAIN: no more
                }
                let connection = _Connection(descriptor: descriptor, now: now)
                var peer: UInt32 = 0
                let owner = geteuid()
                let credentialsError = mainline_socket_peer_uid(descriptor, &peer)
                if credentialsError != 0 {
                    connection.refuse(
                        _Answers.error(
                            "refused: cannot tell the peer's uid: \(String(cString: strerror(credentialsError)))"
                        )
                    )
                } else if peer != owner {
                    connection.refuse(
                        _Answers.error("refused: peer uid \(peer) is not this process's owner (uid \(owner))")
                    )
                } else if connections.count >= limits.clients {
                    connection.refuse(
                        _Answers.error(
                            "refused: \(limits.clients) clients are attached already; detach one and try again"
                        )
                    )
                }
                if connection.closesWhenWritten {
                    // The refusal fits the new socket's buffer; a peer that is gone by now misses it.
                    _ = connection.write(now: now)
                    continue
                }
                connections.append(connection)
            }
        }

        /// How long `poll` may wait: until the first timeout of a client, or accepting again, or for ever (no client).
        private func timeoutMilliseconds(now: UInt64) -> Int32 {
            var earliest = acceptingAgainAt
            for connection in connections {
                let deadline = connection.lastProgress &+ Self.nanoseconds(limits.limit(connection.waitingFor))
                earliest = min(earliest ?? deadline, deadline)
            }
            guard let earliest else { return -1 }
            guard earliest > now else { return 0 }
            return Int32(clamping: (earliest - now) / 1_000_000 + 1)
        }

        /// Monotonic nanoseconds.
        static func now() -> UInt64 {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
        }

        private static func nanoseconds(_ duration: Duration) -> UInt64 {
            let (seconds, attoseconds) = duration.components
            return UInt64(max(seconds, 0)) * 1_000_000_000 + UInt64(max(attoseconds, 0) / 1_000_000_000)
        }
    }
}
