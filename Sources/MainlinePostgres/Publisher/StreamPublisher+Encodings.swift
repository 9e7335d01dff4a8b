#if Postgres
import Foundation
import PostgresNIO

/// Publishing bytes and JSON: the same publish, with the payload made for you.
extension StreamPublisher {
    /// Publishes `bytes` as the next event of `stream`; returns once it committed. Thread-safe.
    ///
    /// - Parameters:
    ///   - bytes: The event's bytes.
    ///   - stream: The stream's name.
    ///   - key: The event's key, or `nil`.
    ///   - idempotencyKey: Makes a retry commit once (see ``publish(_:to:key:idempotencyKey:timeout:)``), or `nil`.
    ///   - timeout: How long it may take; ``Options/publishTimeout`` when `nil`.
    /// - Returns: The event's sequence in the stream.
    /// - Throws: As ``publish(_:to:key:idempotencyKey:timeout:)``.
    @discardableResult
    public func publish(
        bytes: some Sequence<UInt8>,
        to stream: String,
        key: String? = nil,
        idempotencyKey: String? = nil,
        timeout: Duration? = nil
    ) async throws -> Int64 {
        try await publish(
            ByteBuffer(bytes: bytes),
            to: stream,
            key: key,
            idempotencyKey: idempotencyKey,
            timeout: timeout
        )
    }

    /// Publishes `value` encoded as JSON as the next event of `stream`; returns once it committed. Thread-safe.
    ///
    /// - Parameters:
    ///   - value: The event; subscribe with a JSON `subscribe(to:from:as:into:)` of ``StreamSubscriber`` to decode it.
    ///   - stream: The stream's name.
    ///   - key: The event's key, or `nil`.
    ///   - idempotencyKey: Makes a retry commit once (see ``publish(_:to:key:idempotencyKey:timeout:)``), or `nil`.
    ///   - timeout: How long it may take; ``Options/publishTimeout`` when `nil`.
    /// - Returns: The event's sequence in the stream.
    /// - Throws: `EncodingError`, or as ``publish(_:to:key:idempotencyKey:timeout:)``.
    @discardableResult
    public func publish(
        json value: some Encodable,
        to stream: String,
        key: String? = nil,
        idempotencyKey: String? = nil,
        timeout: Duration? = nil
    ) async throws -> Int64 {
        try await publish(
            ByteBuffer(data: try JSONEncoder().encode(value)),
            to: stream,
            key: key,
            idempotencyKey: idempotencyKey,
            timeout: timeout
        )
    }
}
#endif
