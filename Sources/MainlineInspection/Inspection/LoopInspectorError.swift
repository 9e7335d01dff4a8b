import MainlineLoop
import MainlineLoopCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why ``LoopInspector/start(socketPath:)`` could not serve on a path. Each case names the path; the system's failures
/// also name the call and its `errno`.
///
/// `LoopInspectorError` is a value type; all operations on it are thread-safe.
public enum LoopInspectorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The path does not fit a Unix domain socket address (at most `limit` bytes of UTF-8 on Linux).
    case pathTooLong(path: String, limit: Int)
    /// Another inspector (or some other server) is listening on the path: it answered a connection. Stop it, or pick
    /// another path.
    case inUse(path: String)
    /// Something that is not a socket is at the path; the inspector never removes it.
    case notASocket(path: String)
    /// A system call failed: `operation` names it (`socket`, `bind`, `listen`, `lstat`, `connect`, `unlink`,
    /// `pthread_create`), `errno` is what it set.
    case system(operation: String, path: String, errno: Int32)

    /// The path the inspector was asked to serve on.
    public var path: String {
        switch self {
        case .pathTooLong(let path, _), .inUse(let path), .notASocket(let path), .system(_, let path, _): path
        }
    }

    /// A sentence naming the path and what went wrong, such as
    /// `cannot serve the inspector on /run/app.sock: bind failed: Permission denied (errno 13)`.
    public var description: String {
        let reason =
            switch self {
            case .pathTooLong(let path, let limit):
                "the path is \(path.utf8.count) bytes long; a Unix domain socket's path holds at most \(limit)"
            case .inUse:
                "a server is listening there already (another inspector?); stop it or choose another path"
            case .notASocket:
                "something that is not a socket is there; remove it or choose another path"
            case .system(let operation, _, let code):
                "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
            }
        return "cannot serve the inspector on \(path): \(reason)"
    }
}
