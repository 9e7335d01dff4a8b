#if Postgres
import Foundation
import Logging

/// A swift-log handler that keeps every message, for tests that check what was reported.
///
/// All operations on `RecordingLogHandler` are thread-safe.
struct RecordingLogHandler: LogHandler {
    final class Store: @unchecked Sendable {  // `entries` is read and written only while holding `lock`
        private let lock = NSLock()
        private var entries: [(level: Logger.Level, message: String)] = []

        func append(_ level: Logger.Level, _ message: String) { lock.withLock { entries.append((level, message)) } }

        /// The messages at `level` or above.
        func messages(atLeast level: Logger.Level) -> [String] {
            lock.withLock { entries.filter { $0.level >= level }.map(\.message) }
        }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let details = (metadata.merging(event.metadata ?? [:]) { $1 }).sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        store.append(event.level, "\(event.message) \(details)")
    }

    /// A logger that records into a new store, and the store.
    static func logger() -> (Logger, Store) {
        let store = Store()
        return (Logger(label: "test") { _ in RecordingLogHandler(store: store) }, store)
    }
}
#endif
