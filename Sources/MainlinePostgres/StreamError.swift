#if Postgres
/// What went wrong with a stream, its name, its stored data or the connection that carries it.
///
/// All operations on `StreamError` are thread-safe (it is a value).
///
/// Thrown by the publishing and subscribing entry points when their input is invalid, and logged (with the counts in
/// ``StreamSubscriber/Counts`` and ``StreamSubscription/Counts``) when input from the database is bad: bad input from
/// outside the process never traps and never stops a subscriber.
public enum StreamError: Error, Sendable, CustomStringConvertible {
    /// A stream name that cannot be used: empty, longer than ``StreamSchema/maximumStreamNameLength`` bytes, or
    /// holding a control character.
    case invalidStreamName(String, reason: String)
    /// A table prefix or channel name that is not a plain lowercase SQL identifier (`[a-z_][a-z0-9_]*`, at most 40
    /// bytes), so it cannot be written into a statement safely.
    case invalidIdentifier(String, role: String)
    /// A notification on the streams' channel that is not `"<sequence> <stream>"`; skipped.
    case malformedHint(payload: String)
    /// A stored payload the subscription's decoder refused; the event is skipped.
    case undecodablePayload(stream: String, sequence: Int64, underlying: any Error)
    /// The listening connection did not answer a health check in time; the subscriber reconnects.
    case connectionUnresponsive(timeout: Duration)
    /// The listening connection ended (closed by the server, the network, or ``StreamSubscriber`` itself).
    case connectionEnded
    /// ``StreamSubscriber/run()`` was called while the subscriber was already running; a subscriber has one
    /// connection and one reader, so it runs once at a time.
    case alreadyRunning
    /// An event key (or an idempotency key) that cannot be used: empty, longer than
    /// ``StreamSchema/maximumKeyLength`` bytes, or holding a control character. `role` is `"key"` or
    /// `"idempotency key"`.
    case invalidKey(String, role: String, reason: String)
    /// A publish to `stream` did not commit within `timeout`, so its caller was answered with this error.
    ///
    /// When `mayHaveCommitted` is `false` the event was never written (it was still waiting for its turn or for a
    /// connection, or the database refused it past its deadline); it never commits. When it is `true` the statement
    /// had been sent and its answer did not arrive in time: the database refuses to commit it once the deadline has
    /// passed by its own clock, but it may have committed just before, or the answer may have been lost with the
    /// connection. Publish it again with the same idempotency key to learn which, without publishing it twice.
    case publishTimedOut(stream: String, timeout: Duration, mayHaveCommitted: Bool)
    /// Reading `stream`'s position (``StreamPublisher/lastSequence(of:timeout:)``) did not end within `timeout`: the
    /// database did not answer, or no connection to it could be made in time.
    case readTimedOut(stream: String, timeout: Duration)
    /// A consumer group's name that cannot be used: empty, longer than ``StreamSchema/maximumStreamNameLength`` bytes,
    /// or holding a control character.
    case invalidGroupName(String, reason: String)
    /// A stored position's name (``StreamStart/stored(_:initially:)``) that cannot be used: empty, longer than
    /// ``StreamSchema/maximumStreamNameLength`` bytes, or holding a control character.
    case invalidPositionName(String, reason: String)
    /// A stored position's name already used for another subscription: in this subscriber (thrown by `subscribe`), or
    /// in the database for another stream (`otherStream`; the subscription ends with it).
    case positionNameInUse(String, stream: String, otherStream: String)
    /// A start that cannot be used where it was given: ``StreamStart/stored(_:initially:)`` for a consumer group (the
    /// group keeps its own position) or as the `initially` of another `.stored`.
    case unsupportedStart(StreamStart, reason: String)
    /// A mailbox given to a second subscription that stores its position: the position follows what the consumer takes
    /// from the mailbox, so each such subscription needs a mailbox of its own.
    case mailboxAlreadyTracked(positionName: String)

    /// A readable sentence naming what was wrong.
    public var description: String {
        switch self {
        case .invalidStreamName(let name, let reason):
            return "invalid stream name \(name.debugDescription): \(reason)"
        case .invalidIdentifier(let identifier, let role):
            return "invalid \(role) \(identifier.debugDescription): use a lowercase SQL identifier ([a-z_][a-z0-9_]*, "
                + "at most 40 bytes)"
        case .malformedHint(let payload):
            return "malformed stream hint \(payload.prefix(200).debugDescription): expected \"<sequence> <stream>\""
        case .undecodablePayload(let stream, let sequence, let underlying):
            return "stream \(stream.debugDescription) event \(sequence): payload not decodable: \(underlying)"
        case .connectionUnresponsive(let timeout):
            return "the listening connection did not answer a health check within \(timeout)"
        case .connectionEnded:
            return "the listening connection ended"
        case .alreadyRunning:
            return "StreamSubscriber.run() was called while it was already running; run it from one task at a time"
        case .invalidKey(let key, let role, let reason):
            return "invalid \(role) \(key.prefix(200).debugDescription): \(reason)"
        case .publishTimedOut(let stream, let timeout, let mayHaveCommitted):
            let outcome =
                mayHaveCommitted
                ? "the statement was sent and may have committed; publish it again with the same idempotency key to "
                    + "commit it once"
                : "it was not published"
            return "publishing to stream \(stream.debugDescription) did not commit within \(timeout): \(outcome)"
        case .readTimedOut(let stream, let timeout):
            return
                "reading stream \(stream.debugDescription)'s position took longer than \(timeout): no answer from the "
                + "database"
        case .invalidGroupName(let name, let reason):
            return "invalid consumer group name \(name.debugDescription): \(reason)"
        case .invalidPositionName(let name, let reason):
            return "invalid stored position name \(name.debugDescription): \(reason)"
        case .positionNameInUse(let name, let stream, let otherStream):
            return "the stored position \(name.debugDescription) of stream \(stream.debugDescription) is already used "
                + "for stream \(otherStream.debugDescription); give each subscription a name of its own"
        case .unsupportedStart(let start, let reason):
            return "start \(start) cannot be used here: \(reason)"
        case .mailboxAlreadyTracked(let name):
            return "the mailbox of the stored position \(name.debugDescription) already serves another stored "
                + "position; give each .stored subscription a mailbox of its own"
        }
    }
}
#endif
