import Logging
import MainlineLoop

/// A swift-log handler that keeps every message, for tests that assert on what was logged.
///
/// All operations on `RecordingLogHandler` are thread-safe (the records live behind a lock).
struct RecordingLogHandler: LogHandler {
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    /// The records of every handler made from one `Recorder`.
    final class Recorder: Sendable {
        private let records = _Locked<[Record]>([])

        var all: [Record] { records.withLock { $0 } }

        func append(_ record: Record) { records.withLock { $0.append(record) } }

        /// A logger that records here.
        func logger(label: String = "test") -> Logger {
            Logger(label: label) { _ in RecordingLogHandler(recorder: self) }
        }
    }

    let recorder: Recorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        recorder.append(
            Record(
                level: event.level,
                message: "\(event.message)",
                metadata: metadata.merging(event.metadata ?? [:]) { $1 }
            )
        )
    }
}
