#if Postgres
import PostgresNIO

extension StreamPublisher {
    /// One event to publish in a batch (``StreamPublisher/publish(contentsOf:to:timeout:)``): its payload, its key
    /// and its idempotency key.
    ///
    /// All operations on `Message` are thread-safe (it is a value).
    public struct Message: Sendable {
        /// The event's bytes.
        public var payload: ByteBuffer
        /// The event's key (``StreamEvent/key``), or `nil`.
        public var key: String?
        /// Makes publishing it again commit it once: see ``StreamPublisher/publish(_:to:key:idempotencyKey:timeout:)``.
        public var idempotencyKey: String?

        /// Creates a message.
        ///
        /// - Parameters:
        ///   - payload: The event's bytes.
        ///   - key: The event's key; at most ``StreamSchema/maximumKeyLength`` bytes.
        ///   - idempotencyKey: A name for this event, unique in its stream; at most
        ///     ``StreamSchema/maximumKeyLength`` bytes.
        public init(_ payload: ByteBuffer, key: String? = nil, idempotencyKey: String? = nil) {
            self.payload = payload
            self.key = key
            self.idempotencyKey = idempotencyKey
        }

        /// Checks its keys.
        func validate() throws(StreamError) {
            if let key { try StreamSchema.validate(key: key, role: "key") }
            if let idempotencyKey { try StreamSchema.validate(key: idempotencyKey, role: "idempotency key") }
        }
    }
}
#endif
