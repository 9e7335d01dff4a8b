import Foundation
import MainlineInspectorSchema
import _MainlineTestSupport

@testable import MainlineInspection
@testable import MainlineLoop
@testable import MainlineLoopCore

#if canImport(Glibc)
import Glibc
#endif

/// A client of a `LoopInspector` for tests: a Unix domain socket, bytes out, lines in.
///
/// `InspectorTestClient` is **not** thread-safe: one test uses it.
///
/// Reads block, bounded by a receive timeout only so that a broken server fails the test with what the client was
/// waiting for, instead of hanging it.
final class InspectorTestClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let path: String
    let descriptor: Int32
    private var pending: [UInt8] = []

    /// How long a read waits before the test fails: generous, a limit on a broken server, not a measure of speed.
    static let readTimeoutSeconds = 60

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: Self.readTimeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = LoopInspector._Listener.withAddress(of: path) { connect(descriptor, $0, $1) }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "cannot connect to \(path): \(reason)")
        }
    }

    deinit { close(descriptor) }

    /// Sends `text` as it is (add the line break yourself).
    func send(_ text: String) throws {
        try send(bytes: Array(text.utf8))
    }

    /// Sends `bytes` as they are.
    func send(bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else {
                throw Failure(description: "send to \(path) failed: \(String(cString: strerror(errno)))")
            }
            offset += sent
        }
    }

    /// The next line (without its line break), or `nil` once the server has closed the connection.
    ///
    /// A reset counts as the end too: the inspector closes a refused client without waiting for its request, and a
    /// request that arrives just before the close makes the kernel report `ECONNRESET` after the last line.
    func readLine() throws -> String? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeSubrange(...end)
                return line
            }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                pending.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno == ECONNRESET {
                return nil
            } else if errno != EINTR {
                throw Failure(
                    description: "no line from \(path) within \(Self.readTimeoutSeconds) s "
                        + "(\(String(cString: strerror(errno)))); \(pending.count) bytes of a partial line had come"
                )
            }
        }
    }

    /// Sends `{"request":"<request>"}` and returns the answer, read as JSON.
    func ask(_ request: String) throws -> JSONTree {
        try send("{\"request\":\"\(request)\"}\n")
        return try answer()
    }

    /// Sends `{"request":"<request>"}` and returns the answer, decoded as the schema's `type`, as the console does.
    func ask<Document: Decodable>(_ request: String, as type: Document.Type) throws -> Document {
        try send("{\"request\":\"\(request)\"}\n")
        guard let line = try readLine() else { throw Failure(description: "\(path) closed the connection") }
        return try InspectorJSON.decode(type, from: line.utf8)
    }

    /// The next line, read as JSON.
    func answer() throws -> JSONTree {
        guard let line = try readLine() else { throw Failure(description: "\(path) closed the connection") }
        return try JSONTree(line: line)
    }
}

/// A folder of its own under `/tmp` for a test's sockets, removed with everything in it when the test is done.
///
/// `TemporaryFolder` is **not** thread-safe: one test uses it.
final class TemporaryFolder {
    let path: String

    init() {
        path = makeTemporaryFolder(prefix: "mainline-inspector")
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A path in the folder.
    func file(_ name: String) -> String { path + "/" + name }
}
