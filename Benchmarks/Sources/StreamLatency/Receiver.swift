/// The receiving half of a peer, in the measuring process: it records every event into a ``DeliveryTally``.
///
/// Must be used on the main actor.
@MainActor
protocol Receiver {
    /// Connects and starts listening; returns once an event published from now on will be received.
    func start() async throws
    /// Stops listening and closes its connection.
    func stop() async
}
