import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A TCP client of a line protocol on 127.0.0.1, with blocking calls, as `nc` would be.
///
/// Reads give up after 30 seconds (a receive timeout, which ``receiveTimeout`` changes), so that a broken server fails
/// a test instead of hanging it; the tests assert what arrives, never how fast. A test that must let time pass
/// blocks on a read with a shorter receive timeout, never sleeps. Blocking calls run on threads of their own through ``offPool(_:)``.
final class LineClient: @unchecked Sendable {  // used by one test thread at a time
    let fd: Int32
    private var received: [UInt8] = []
    /// Whether the server closed the connection (end of stream or reset), as opposed to a read timing out.
    private(set) var isClosedByServer = false
    private var readOffset = 0

    /// How long a read waits for bytes before it gives up and returns `nil` (with ``isClosedByServer`` still false).
    var receiveTimeout: Duration = .seconds(30) {
        didSet { Self.setReceiveTimeout(receiveTimeout, on: fd) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Connects to `port`; `receiveBufferSize` shrinks the kernel's receive buffer (a client that reads slowly).
    init(port: Int, receiveBufferSize: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBufferSize {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        Self.setReceiveTimeout(receiveTimeout, on: fd)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw Failure(description: "connect to 127.0.0.1:\(port): \(message)")
        }
    }

    private static func setReceiveTimeout(_ timeout: Duration, on fd: Int32) {
        let (seconds, attoseconds) = timeout.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        Glibc.close(fd)
    }

    /// Sends `line` and a line break.
    func send(_ line: String) throws {
        try send(bytes: Array((line + "\n").utf8))
    }

    /// Sends raw bytes, all of them.
    func send(bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    /// The next line, without its line break; `nil` when the server closed the connection (or ``receiveTimeout``
    /// passed).
    func readLine() -> String? {
        while true {
            if let newline = received[readOffset...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: received[readOffset..<newline], as: UTF8.self)
                readOffset = newline + 1
                if readOffset > 65_536 {
                    received.removeFirst(readOffset)
                    readOffset = 0
                }
                return line
            }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                if count == 0 || errno == ECONNRESET { isClosedByServer = true }
                return nil
            }
        }
    }

    /// Reads every line until `BYE` or the end of the stream, handing each to `handle`: a read that passes the receive
    /// timeout is tried again (what waits on the lines decides how long is too long). Blocks the calling thread.
    func readLinesUntilEnd(_ handle: (String) -> Void) {
        while true {
            guard let line = readLine() else {
                // Only a receive timeout (EAGAIN) is tried again.
                if isClosedByServer || (errno != EAGAIN && errno != EWOULDBLOCK) { return }
                continue
            }
            if line == "BYE" { return }
            handle(line)
        }
    }

    /// Reads lines until one satisfies `isWanted`; returns it, or `nil` at the end of the stream.
    func readLine(where isWanted: (String) -> Bool) -> String? {
        while let line = readLine() {
            if isWanted(line) { return line }
        }
        return nil
    }
}
