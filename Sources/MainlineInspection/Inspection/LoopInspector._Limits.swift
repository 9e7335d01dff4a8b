extension LoopInspector {
    /// What the inspector may be asked for, and how long it waits for a client.
    ///
    /// `_Limits` is a value type; all operations on it are thread-safe.
    package struct _Limits: Sendable {
        /// Clients connected at once; the next one gets one refusal line and is closed.
        package var clients = 16
        /// The longest request line, in bytes (without its line break).
        package var requestLineBytes = 4_096
        /// How long an answer may wait for a client to read any of it before the client is closed.
        package var stalledWrite: Duration = .seconds(10)
        /// How long a request line may stay unfinished before the client is told so and closed.
        package var unfinishedRequest: Duration = .seconds(10)
        /// How long a client may send nothing — since it attached, since its last answer was written, or since its
        /// last line (a blank one too) arrived — before it is told so and closed: attached clients take slots.
        package var idleClient: Duration = .seconds(10)

        /// How long a connection may wait for what it waits for, counted from its `lastProgress`.
        func limit(_ wait: _Connection._Wait) -> Duration {
            switch wait {
            case .reader: stalledWrite
            case .restOfRequest: unfinishedRequest
            case .request: idleClient
            }
        }

        /// The limits `LoopInspector.start(socketPath:)` serves with.
        package init() {}

        /// The defaults, but a client that asks nothing is kept for ten minutes: for the package's own tests that are
        /// not about that bound, whose pauses between requests last as long as a busy machine makes them (the whole
        /// suite under ThreadSanitizer paused one for more than 10 s, and the inspector closed it).
        package static var keepingSilentClients: Self {
            var limits = Self()
            limits.idleClient = .seconds(600)
            return limits
        }
    }
}
