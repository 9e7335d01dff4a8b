import Foundation
import Logging
import PostgresNIO
import StreamWire

/// The `NOTIFY` peer's receiving half: one connection that `LISTEN`s on a channel; each notification's payload is
/// stamped where postgres-nio hands it over, on the listening task (no hop to a loop: this is the floor).
///
/// Must be used on the main actor.
@MainActor
final class NotifyReceiver: Receiver {
    private let configuration: PostgresConnection.Configuration
    private let channel: String
    private let tally: DeliveryTally
    private var listening: Task<Void, Never>?
    private let isListening = Flag()
    private let hasEnded = Flag()

    /// Prepares to listen on `channel`; nothing connects until ``start()``.
    ///
    /// - Parameters:
    ///   - configuration: Where the database is.
    ///   - channel: The channel the publishing process notifies.
    ///   - tally: Where the deliveries go.
    init(configuration: PostgresConnection.Configuration, channel: String, tally: DeliveryTally) {
        self.configuration = configuration
        self.channel = channel
        self.tally = tally
    }

    func start() async throws {
        let logger = Logger(label: "stream-latency.notify")
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        let (channel, tally, isListening, hasEnded) = (channel, tally, isListening, hasEnded)
        listening = Task {
            // Ends when the task is cancelled (or the connection fails); either way the connection is closed here.
            try? await connection.listen(on: channel) { notifications in
                isListening.set()
                for try await notification in notifications {
                    let now = monotonicNanoseconds()
                    tally.record(Stamp(text: notification.payload), at: now)
                }
            }
            try? await connection.close()
            hasEnded.set()
        }
        // LISTEN is acknowledged before postgres-nio calls the closure.
        let deadline = ContinuousClock.now + .seconds(30)
        while !isListening.value {
            guard ContinuousClock.now < deadline, !hasEnded.value else { throw ReceiverError.notListening(channel) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func stop() async {
        listening?.cancel()
        await listening?.value
    }
}
