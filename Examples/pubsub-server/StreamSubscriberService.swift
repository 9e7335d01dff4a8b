import MainlinePostgres
import ServiceLifecycle

/// A `StreamSubscriber` as a service of the server's `ServiceGroup`: it listens, reads and reconnects until graceful
/// shutdown, then returns.
///
/// All operations on `StreamSubscriberService` are thread-safe (it is a value holding a thread-safe subscriber).
struct StreamSubscriberService: Service {
    /// The subscriber it runs.
    let subscriber: StreamSubscriber

    /// Runs the subscriber until graceful shutdown (or cancellation) ends it.
    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await subscriber.run() }
        } catch is CancellationError {
            // How every run of a subscriber ends: the group asked it to stop.
        }
    }
}
