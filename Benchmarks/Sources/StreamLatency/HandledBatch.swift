#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a member process handled at once (one mailbox take, or one `SELECT … FOR UPDATE SKIP LOCKED`), as the line it
/// prints before it acknowledges or commits: the printed line is the handling's side effect, so a batch printed by a
/// member that is then killed counts as handled even though its acknowledgement or commit never happened.
///
/// All operations on `HandledBatch` are thread-safe (it is a value).
///
/// Its line is `handled <ns> <index>[*] …`: ``monotonicNanoseconds()`` when it was handled, then each event's number
/// (its payload), with `*` when the group had handed it out before (`deliveryCount > 1`; the queue has no such count).
struct HandledBatch: Sendable {
    /// When it was handled (``monotonicNanoseconds()``, comparable across processes).
    var handledAt: Int64
    /// The events' numbers, from their payloads (-1 for a payload that is not a number).
    var indices: [Int] = []
    /// Whether the group had handed out each of them before (`deliveryCount > 1`), parallel to ``indices``.
    var wasRedelivered: [Bool] = []
    /// How many of them the group had handed out before.
    var redelivered: Int { wasRedelivered.count { $0 } }

    /// An empty batch handled at `handledAt`.
    init(handledAt: Int64) {
        self.handledAt = handledAt
    }

    /// Adds one event.
    ///
    /// - Parameters:
    ///   - index: Its number (its payload).
    ///   - redelivered: Whether it had been handed out before.
    mutating func append(_ index: Int, redelivered: Bool = false) {
        indices.append(index)
        wasRedelivered.append(redelivered)
    }

    /// The line's first word.
    static let prefix = "handled"

    /// Parses a line written by ``emit()``; `nil` when `text` is not one.
    ///
    /// - Parameter text: A line a member printed.
    init?(line text: some StringProtocol) {
        let words = text.split(separator: " ")
        guard words.count >= 2, words[0] == Self.prefix, let handledAt = Int64(words[1]) else { return nil }
        self.handledAt = handledAt
        for word in words.dropFirst(2) {
            let isRedelivered = word.hasSuffix("*")
            guard let index = Int(isRedelivered ? word.dropLast() : word) else { return nil }
            append(index, redelivered: isRedelivered)
        }
    }

    /// Prints the batch's line (see ``emitLine(_:)``).
    func emit() {
        var words = [Self.prefix, "\(handledAt)"]
        for (index, redelivered) in zip(indices, wasRedelivered) {
            words.append(redelivered ? "\(index)*" : "\(index)")
        }
        emitLine(words.joined(separator: " "))
    }
}

/// Writes `line` to standard output at once with one `write(2)`, unbuffered: what a member printed before a `kill -9`
/// reaches the measuring process.
func emitLine(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = write(1, bytes.baseAddress! + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if errno != EINTR {
                return
            }
        }
    }
}
