/// One line of the protocol, parsed.
///
/// ```
/// SUB <topic>             subscribe            → OK SUB <topic>
/// QSUB <group> <topic>    join a queue group   → OK QSUB <group> <topic>; each message to one client of the group
/// UNSUB <topic>           unsubscribe          → OK UNSUB <topic> (from the topic and every group of it)
/// PUB <topic> <message>   publish (no reply)   → every subscriber: MSG <topic> <message>
/// STATS                   counters             → STATS clients=… topics=… published=… dropped=… groups=… you.dropped=…
/// DEBUG                   the main loop's state → DEBUG <line> for each line of its snapshot, then DEBUG END
/// QUIT                    leave                → BYE, then the server closes the connection
/// ```
///
/// Parsing runs on the connection's SwiftNIO thread; only parsed commands are posted into the main loop.
enum Command: Equatable, Sendable {
    case subscribe(topic: String)
    /// `QSUB <group> <topic>`: the client joins `group`, whose clients share `topic`'s messages, each message to one.
    case queueSubscribe(group: String, topic: String)
    case unsubscribe(topic: String)
    case publish(topic: String, message: String)
    case stats
    case debug
    case quit

    /// The longest line the server accepts unless `--max-line-bytes` says otherwise, in bytes, without its line
    /// break. A longer line is an error, and the server closes the connection after saying so.
    static let defaultMaximumLineLength = 1_024
    /// The longest topic name, in bytes.
    static let maximumTopicLength = 64
    /// The longest group name, in bytes (a group is named like a topic).
    static let maximumGroupLength = 64

    /// Why a line is not a command. The description is what follows `ERR ` on the wire.
    enum ParseError: Error, Equatable, CustomStringConvertible {
        case invalidUTF8
        case unknownCommand(String)
        case usage(String)
        case invalidTopic(String)
        case invalidGroup(String)

        var description: String {
            switch self {
            case .invalidUTF8: "invalid UTF-8"
            case .unknownCommand(let word): "unknown command '\(word.prefix(32))'"
            case .usage(let usage): "usage: \(usage)"
            case .invalidTopic(let topic):
                "invalid topic '\(topic.prefix(32))' (1 to \(Command.maximumTopicLength) bytes, no spaces)"
            case .invalidGroup(let group):
                "invalid group '\(group.prefix(32))' (1 to \(Command.maximumGroupLength) bytes, no spaces)"
            }
        }
    }

    /// Parses one line (without its line break; a trailing carriage return is ignored). Returns `nil` for a blank
    /// line, which the protocol ignores.
    static func parse(_ bytes: some Collection<UInt8>) throws(ParseError) -> Command? {
        guard var line = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        if line.hasSuffix("\r") { line.removeLast() }
        guard let first = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true).first else {
            return nil
        }
        let verb = first.uppercased()
        let rest = line[first.endIndex...].drop(while: { $0 == " " })
        switch verb {
        case "SUB":
            return .subscribe(topic: try topic(of: rest, usage: "SUB <topic>", alone: true).topic)
        case "QSUB":
            return try queueSubscription(of: rest)
        case "UNSUB":
            return .unsubscribe(topic: try topic(of: rest, usage: "UNSUB <topic>", alone: true).topic)
        case "PUB":
            let (topic, message) = try topic(of: rest, usage: "PUB <topic> <message>", alone: false)
            return .publish(topic: topic, message: message)
        case "STATS":
            guard rest.isEmpty else { throw .usage("STATS") }
            return .stats
        case "DEBUG":
            guard rest.isEmpty else { throw .usage("DEBUG") }
            return .debug
        case "QUIT":
            guard rest.isEmpty else { throw .usage("QUIT") }
            return .quit
        default:
            throw .unknownCommand(String(first))
        }
    }

    /// Splits `text` into a topic and what follows it; `alone` means nothing may follow, otherwise something must.
    private static func topic(
        of text: Substring,
        usage: String,
        alone: Bool
    ) throws(ParseError) -> (topic: String, message: String) {
        let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let topic = parts.first else { throw .usage(usage) }
        let message = parts.count > 1 ? String(parts[1]) : ""
        if alone ? !message.isEmpty : message.isEmpty { throw .usage(usage) }
        guard topic.utf8.count <= maximumTopicLength, !topic.contains(where: \.isWhitespace) else {
            throw .invalidTopic(String(topic))
        }
        return (String(topic), message)
    }

    /// Parses what follows `QSUB`: exactly a group and a topic, each named as a topic is.
    private static func queueSubscription(of text: Substring) throws(ParseError) -> Command {
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count == 2 else { throw .usage("QSUB <group> <topic>") }
        let (group, topic) = (words[0], words[1])
        guard group.utf8.count <= maximumGroupLength, !group.contains(where: \.isWhitespace) else {
            throw .invalidGroup(String(group))
        }
        guard topic.utf8.count <= maximumTopicLength, !topic.contains(where: \.isWhitespace) else {
            throw .invalidTopic(String(topic))
        }
        return .queueSubscribe(group: String(group), topic: String(topic))
    }
}
