import CLibUV
import CMainlineShims
import MainlineLoop
import MainlineLoopCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension LoopInspector {
    /// The inspector's server, on an ``EventLoop`` of its own: one `uv_poll_t` on the listening socket and one per
    /// client, on that loop's libuv loop, and one of the loop's timers for the earliest timeout. It answers every
    /// request from the registry's describers, and touches no other loop.
    ///
    /// All operations on `_Server` run on its loop's thread (``begin()`` and ``end()`` in jobs posted to it, the rest
    /// in its libuv callbacks and timers), after `init`.
    final class _Server: @unchecked Sendable {
        // @unchecked Sendable: every `var` is touched only on `loop`'s thread, in the jobs, timers and libuv callbacks
        // that loop runs; `init` runs before the first of them is posted.
        private let loop: EventLoop
        private var listener: _Listener?
        private(set) var listenerPoll: UnsafeMutablePointer<uv_poll_t>?
        /// The attached clients, in the order they were accepted.
        var clients: [_Client] = []
        /// Until when (monotonic nanoseconds) new connections wait in the kernel's queue: the process ran out of
        /// descriptors, and a listener watched meanwhile would call back at once, again and again.
        var acceptingAgainAt: UInt64?
        /// The timer armed for the earliest timeout, and that timeout (monotonic nanoseconds).
        private var timeout: EventLoop.Scheduled?
        private var timeoutDeadline: UInt64?
        let limits: _Limits
        let answers: _Answers

        /// One client: its connection and the poll handle that watches its socket.
        final class _Client {
            unowned let server: _Server
            let connection: _Connection
            let poll: UnsafeMutablePointer<uv_poll_t>
            /// The libuv events the handle watches for now.
            var watching: Int32 = 0

            init(server: _Server, connection: _Connection, poll: UnsafeMutablePointer<uv_poll_t>) {
                self.server = server
                self.connection = connection
                self.poll = poll
            }
        }

        init(listener: _Listener, registry: _InspectionRegistry, limits: _Limits, loop: EventLoop) {
            self.loop = loop
            self.listener = listener
            self.limits = limits
            self.answers = _Answers(registry: registry, requestLineBytes: limits.requestLineBytes)
        }

        /// Starts watching the listening socket. On the loop's thread.
        func begin() {
            guard let listener else { return }
            let poll = watch(listener.descriptor)
            poll.pointee.data = Unmanaged.passUnretained(self).toOpaque()
            listenerPoll = poll
            startWatchingListener()
        }

        /// Closes every client and the listening socket, and removes the socket file. On the loop's thread;
        /// idempotent.
        func end() {
            timeout?.cancel()
            timeout = nil
            for client in clients { _UVResources.close(client.poll, for: .inspector) }
            clients.removeAll()  // their connections' deinits close their sockets, no longer watched
            if let listenerPoll { _UVResources.close(listenerPoll, for: .inspector) }
            listenerPoll = nil
            listener?.closeAndRemove()
            listener = nil
        }

        // MARK: libuv's callbacks

        /// The listening socket is readable: accepts every waiting connection.
        fileprivate func listenerReady() {
            guard let listener else { return }
            let now = Self.now()
            accept(on: listener.descriptor, now: now)
            armTimeout(now: now)
        }

        /// A client's socket is ready for what its handle watches (`status` < 0: it failed).
        fileprivate func clientReady(_ client: _Client, status: Int32, events: Int32) {
            let now = Self.now()
            var revents: Int16 = 0
            if status < 0 { revents |= Int16(POLLERR) }
            if events & Int32(UV_READABLE.rawValue) != 0 { revents |= Int16(POLLIN) }
            if events & Int32(UV_WRITABLE.rawValue) != 0 { revents |= Int16(POLLOUT) }
            if events & Int32(UV_DISCONNECT.rawValue) != 0 { revents |= Int16(POLLHUP) }
            if serve(client.connection, events: revents, now: now) {
                rewatch(client)
            } else {
                remove(client)
            }
            armTimeout(now: now)
        }

        /// The earliest timeout is due: checks every client's, and whether to accept again.
        private func timedOut() {
            timeout = nil
            timeoutDeadline = nil
            let now = Self.now()
            if let again = acceptingAgainAt, now >= again { startWatchingListener() }
            for client in clients {
                if serve(client.connection, events: 0, now: now) { rewatch(client) } else { remove(client) }
            }
            armTimeout(now: now)
        }

        // MARK: Clients

        /// Reads, answers and writes what `events` (`poll(2)`'s) allow; checks the timeouts.
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

        /// Watches a client's socket for what its connection waits for: its answer's writability, or requests.
        func rewatch(_ client: _Client) {
            let wanted = Int32(client.connection.isWriting ? UV_WRITABLE.rawValue : UV_READABLE.rawValue)
            guard wanted != client.watching else { return }
            client.watching = wanted
            _UVEngine.check(uv_poll_start(client.poll, wanted, _mainlineInspectorClientReady), "uv_poll_start")
        }

        /// Stops watching a client and closes it.
        private func remove(_ client: _Client) {
            _UVResources.close(client.poll, for: .inspector)
            clients.removeAll { $0 === client }  // its connection's deinit closes its socket, no longer watched
        }

        // MARK: The listener and the timer

        /// A poll handle on `descriptor`, on the loop's libuv loop, not yet started.
        func watch(_ descriptor: Int32) -> UnsafeMutablePointer<uv_poll_t> {
            let poll = _UVResources.allocateHandle(
                uv_poll_t.self,
                type: UV_POLL,
                for: .inspector,
                instance: ObjectIdentifier(loop)
            )
            _UVEngine.check(uv_poll_init_socket(loop.uvLoop, poll, descriptor), "uv_poll_init_socket")
            return poll
        }

        private func startWatchingListener() {
            acceptingAgainAt = nil
            guard let listenerPoll else { return }
            let readable = Int32(UV_READABLE.rawValue)
            _UVEngine.check(uv_poll_start(listenerPoll, readable, _mainlineInspectorListenerReady), "uv_poll_start")
        }

        /// Arms the loop's timer for the first timeout of a client, or accepting again; none without either.
        private func armTimeout(now: UInt64) {
            var earliest = acceptingAgainAt
            for client in clients {
                let connection = client.connection
                let deadline = connection.lastProgress &+ Self.nanoseconds(limits.limit(connection.waitingFor))
                earliest = min(earliest ?? deadline, deadline)
            }
            guard earliest != timeoutDeadline else { return }
            timeout?.cancel()
            timeout = nil
            timeoutDeadline = earliest
            guard let earliest else { return }
            let delay = Duration.nanoseconds(Int64(clamping: earliest > now ? earliest - now : 0))
            timeout = loop.schedule(after: delay, from: Self.timeoutSite) { [self] in timedOut() }
        }

        /// What the flight recorder and stall reports call the timeout timer.
        private static let timeoutSite = LoopSite(label: "inspector timeouts")

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

// libuv calls plain C function pointers: the server, or the client, in `handle->data`.

private func _mainlineInspectorListenerReady(
    _ handle: UnsafeMutablePointer<uv_poll_t>?,
    _ status: Int32,
    _ events: Int32
) {
    Unmanaged<LoopInspector._Server>.fromOpaque(handle!.pointee.data).takeUnretainedValue().listenerReady()
}

private func _mainlineInspectorClientReady(_ handle: UnsafeMutablePointer<uv_poll_t>?, _ status: Int32, _ events: Int32)
{
    let client = Unmanaged<LoopInspector._Server._Client>.fromOpaque(handle!.pointee.data).takeUnretainedValue()
    client.server.clientReady(client, status: status, events: events)
}
