import CLibUV
import CMainlineShims

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Accepting: a new client is refused with one line (another user, too many clients) or watched for its requests.
extension LoopInspector._Server {
    /// Accepts every waiting connection: refuses a peer of another user and any client past the limit, each
    /// with one line.
    func accept(on listenerDescriptor: Int32, now: UInt64) {
        while true {
            let descriptor = mainline_accept_cloexec_nonblocking(listenerDescriptor)
            if descriptor < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                    // Out of descriptors or memory: the waiting clients stay queued; try again in 100 ms.
                    acceptingAgainAt = now &+ 100_000_000
                    if let listenerPoll { uv_poll_stop(listenerPoll) }
                }
                return  // EAGAIN: no more
            }
            let connection = LoopInspector._Connection(descriptor: descriptor, now: now)
            var peer: UInt32 = 0
            let owner = geteuid()
            let credentialsError = mainline_socket_peer_uid(descriptor, &peer)
            if credentialsError != 0 {
                connection.refuse(
                    LoopInspector._Answers.error(
                        "refused: cannot tell the peer's uid: \(String(cString: strerror(credentialsError)))"
                    )
                )
            } else if peer != owner {
                connection.refuse(
                    LoopInspector._Answers.error("refused: peer uid \(peer) is not this process's owner (uid \(owner))")
                )
            } else if clients.count >= limits.clients {
                connection.refuse(
                    LoopInspector._Answers.error(
                        "refused: \(limits.clients) clients are attached already; detach one and try again"
                    )
                )
            }
            if connection.closesWhenWritten {
                // The refusal fits the new socket's buffer; a peer that is gone by now misses it.
                _ = connection.write(now: now)
                continue
            }
            let client = _Client(server: self, connection: connection, poll: watch(descriptor))
            client.poll.pointee.data = Unmanaged.passUnretained(client).toOpaque()
            clients.append(client)
            rewatch(client)
        }
    }
}
