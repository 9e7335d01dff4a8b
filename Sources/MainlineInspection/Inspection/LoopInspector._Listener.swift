import MainlineLoop
import MainlineLoopCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension LoopInspector {
    /// The inspector's listening socket: created owner-only at a path, after clearing a stale socket a crashed
    /// process left there; removed again only if the file at the path is still the one it created.
    ///
    /// `_Listener` is **not** thread-safe: the inspector's thread owns it once the inspector has started.
    struct _Listener {
        /// The listening socket: non-blocking, close-on-exec.
        let descriptor: Int32
        let path: String
        /// The identity of the socket file `bind` created, so that ``closeAndRemove()`` never removes a file someone put at the
        /// path since.
        private let device: UInt
        private let inode: UInt

        /// Held while the umask is changed: two inspectors starting at once must not restore each other's masks
        /// (the second would save the first's 0177 and put it back for good).
        private static let umaskLock = _Lock()

        /// The most bytes a Unix domain socket's path may have on Linux (`sun_path` less its terminating zero).
        static let maximumPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

        /// Creates the socket at `path`, mode `0600` from the moment it exists, listening.
        ///
        /// A path that holds a socket nobody listens on (a crashed process's) is reused; one a server answers on, or
        /// one that is not a socket, is refused.
        ///
        /// - Parameters:
        ///   - path: Where to create the socket.
        ///   - backlog: Connections the kernel queues before the inspector accepts them.
        /// - Throws: `LoopInspectorError` naming the path, and the call and `errno` that failed.
        init(path: String, backlog: Int32) throws(LoopInspectorError) {
            guard !path.isEmpty, !path.utf8.contains(0) else {
                // An empty path would autobind an abstract address, and a zero byte would cut the path short.
                throw .system(operation: "bind", path: path, errno: EINVAL)
            }
            guard path.utf8.count <= Self.maximumPathBytes else {
                throw .pathTooLong(path: path, limit: Self.maximumPathBytes)
            }
            try Self.clearStaleSocket(at: path)

            let descriptor = socket(
                AF_UNIX,
                Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue),
                0
            )
            guard descriptor >= 0 else { throw .system(operation: "socket", path: path, errno: errno) }
            // Owner-only from birth: `bind` creates the file with 0777 less the umask, so a umask of 0177 makes it
            // 0600 with no moment at which another user could connect. The umask is the process's: a file another
            // thread creates in this instant gets no group or other permissions — stricter, never looser.
            let (bound, bindError) = Self.umaskLock.withLock {
                let previousMask = umask(0o177)
                defer { umask(previousMask) }
                let bound = Self.withAddress(of: path) { bind(descriptor, $0, $1) }
                return (bound, errno)
            }
            guard bound == 0 else {
                close(descriptor)
                // Another process bound the path between the stale check and here.
                if bindError == EADDRINUSE { throw .inUse(path: path) }
                throw .system(operation: "bind", path: path, errno: bindError)
            }
            var info = stat()
            guard lstat(path, &info) == 0 else {
                let code = errno
                close(descriptor)
                throw .system(operation: "lstat", path: path, errno: code)
            }
            guard listen(descriptor, backlog) == 0 else {
                let code = errno
                close(descriptor)
                unlink(path)
                throw .system(operation: "listen", path: path, errno: code)
            }
            self.descriptor = descriptor
            self.path = path
            self.device = UInt(info.st_dev)
            self.inode = UInt(info.st_ino)
        }

        /// Closes the socket and removes its file, if the file at the path is still the one this listener created.
        func closeAndRemove() {
            var info = stat()
            if lstat(path, &info) == 0, UInt(info.st_dev) == device, UInt(info.st_ino) == inode {
                unlink(path)
            }
            _ = close(descriptor)
        }

        /// Removes a socket file nobody listens on; refuses a live one and anything that is not a socket.
        private static func clearStaleSocket(at path: String) throws(LoopInspectorError) {
            var info = stat()
            guard lstat(path, &info) == 0 else {
                let code = errno
                if code == ENOENT { return }
                throw .system(operation: "lstat", path: path, errno: code)
            }
            guard info.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path: path) }
            // Non-blocking: a listener whose queue is full answers EAGAIN at once instead of making this wait.
            let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
            guard probe >= 0 else { throw .system(operation: "socket", path: path, errno: errno) }
            let connected = withAddress(of: path) { connect(probe, $0, $1) }
            let code = errno
            _ = close(probe)
            if connected == 0 || code == EAGAIN || code == EINPROGRESS { throw .inUse(path: path) }
            guard code == ECONNREFUSED else { throw .system(operation: "connect", path: path, errno: code) }
            // Nobody listens: a socket a crashed process left behind.
            guard unlink(path) == 0 || errno == ENOENT else {
                throw .system(operation: "unlink", path: path, errno: errno)
            }
        }

        /// Calls `body` with the `sockaddr_un` of `path` (which fits: checked by the caller).
        static func withAddress<Result>(
            of path: String,
            _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
        ) -> Result {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                buffer.copyBytes(from: path.utf8.prefix(buffer.count - 1))
            }
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
    }
}
