import Foundation
import MainlineInspectorSchema

#if canImport(Glibc)
import Glibc
#endif

/// A connection to a process's loop inspector: one request line out, one answer line back.
///
/// `InspectorConnection` is **not** thread-safe: the console's one thread uses it.
final class InspectorConnection {
    /// Why the console could not get an answer; the description is the line it prints after `mainline-console: `.
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// The socket could not be reached: no such file, not a socket, nobody listening, no permission.
        case cannotAttach(path: String, reason: String)
        /// The inspector answered with an error line: a refusal (another user, too many clients) or a bad request.
        case refused(path: String, error: String)
        /// The answer was not a document the console can read, or did not come.
        case badAnswer(path: String, reason: String)

        var description: String {
            switch self {
            case .cannotAttach(let path, let reason): "cannot attach to \(path): \(reason)"
            case .refused(let path, let error):
                error.hasPrefix("refused") ? "\(path) \(error)" : "\(path) answered with an error: \(error)"
            case .badAnswer(let path, let reason): "bad answer from \(path): \(reason)"
            }
        }
    }

    let path: String
    /// The connected socket.
    let descriptor: Int32
    /// Bytes read past the last answer.
    private var pending: [UInt8] = []

    /// The longest answer the console reads.
    static let maximumAnswerBytes = 256 << 20
    /// How long an answer may take. The inspector answers from a loop of its own, even while a loop it shows is stalled.
    static let answerTimeoutMilliseconds: Int32 = 10_000

    /// Connects to the inspector at `path`.
    ///
    /// - Throws: ``Failure/cannotAttach(path:reason:)`` with the system's reason.
    init(path: String) throws(Failure) {
        self.path = path
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity, !path.utf8.contains(0) else {
            throw .cannotAttach(path: path, reason: "the path is longer than a socket's \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .cannotAttach(path: path, reason: Self.reason(errno)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            throw .cannotAttach(path: path, reason: Self.reason(code))
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Asks for `request` on `connection`, or on a new connection to `path` when there is none or it failed; keeps
    /// the connection that answered in `connection` (`nil` after a failure).
    ///
    /// The inspector closes a connection that asked nothing for a while (10 s), with a line saying so: a kept
    /// connection may have been closed since the last request, or its process restarted. One new connection is tried
    /// then, and its failure is the one thrown.
    ///
    /// - Throws: ``Failure``, of the new connection.
    static func ask<Document: Decodable>(
        _ request: String,
        as type: Document.Type,
        path: String,
        reusing connection: inout InspectorConnection?
    ) throws(Failure) -> (line: String, document: Document) {
        if let kept = connection {
            if let answer = try? kept.ask(request, as: type) { return answer }
            connection = nil
        }
        let fresh = try InspectorConnection(path: path)
        let answer = try fresh.ask(request, as: type)
        connection = fresh
        return answer
    }

    /// Asks for `request` (`snapshot` or `recorder`) and returns the answer line, checked to be a document of the
    /// inspector's and not an error, and the document decoded from it as `type` (with the schema's types and coder,
    /// as the inspector encoded it).
    ///
    /// - Returns: The line, exactly as the inspector sent it (without its line break), and the document read from it.
    /// - Throws: ``Failure``: an error line from the inspector (``Failure/refused(path:error:)``), or an answer that
    ///   is missing, cut off or not a JSON object with a `schema` number.
    func ask<Document: Decodable>(
        _ request: String,
        as type: Document.Type
    ) throws(Failure) -> (line: String, document: Document) {
        // The request is a document of the schema too, encoded by its coder (it always encodes: one string).
        let requestLine = (try? InspectorJSON.line(InspectorRequest(request: request))) ?? ""
        let message = Array((requestLine + "\n").utf8)
        // A refused client may find the connection closed already: its refusal is still there to read.
        _ = message.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        let line = try readLine()
        // Every answer has the error line's two keys, `schema` always and `error` when it is one.
        guard let header = try? InspectorJSON.decode(InspectorErrorLine.self, from: line.utf8) else {
            throw .badAnswer(path: path, reason: "not a JSON object: \(line.prefix(120))")
        }
        if let error = header.error { throw .refused(path: path, error: error) }
        guard header.schema != nil else {
            throw .badAnswer(path: path, reason: "the document has no \"schema\" number")
        }
        do {
            return (line, try InspectorJSON.decode(type, from: line.utf8))
        } catch {
            throw .badAnswer(path: path, reason: InspectorJSON.reason(error))
        }
    }

    /// Reads up to the next line break.
    private func readLine() throws(Failure) -> String {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeSubrange(...end)
                return line
            }
            guard pending.count <= Self.maximumAnswerBytes else {
                throw .badAnswer(path: path, reason: "the answer is longer than \(Self.maximumAnswerBytes) bytes")
            }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, Self.answerTimeoutMilliseconds)
            if polled < 0 && errno == EINTR { continue }
            guard polled > 0 else {
                throw .badAnswer(path: path, reason: "no answer within \(Self.answerTimeoutMilliseconds / 1_000) s")
            }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                pending.append(contentsOf: buffer[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else if count < 0 {
                throw .badAnswer(path: path, reason: Self.reason(errno))
            } else {
                throw .badAnswer(
                    path: path,
                    reason: pending.isEmpty ? "the inspector closed the connection" : "the answer was cut off"
                )
            }
        }
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
