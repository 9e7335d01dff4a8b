import MainlineEvents
import MainlineLoop

/// What happened, in order: tests record entries from observers and compare the list.
@MainActor
final class Log {
    private(set) var entries: [String] = []

    func add(_ entry: String) { entries.append(entry) }

    func clear() { entries.removeAll() }
}

/// A delegate-style observer that logs each notification under its name.
@MainActor
final class NamedObserver: SimpleEventObserver {
    let name: String
    let log: Log
    /// Runs after logging, to let a test act from inside a notification.
    var onTrigger: (@MainActor (SimpleEventObservable) -> Void)?

    init(_ name: String, log: Log) {
        self.name = name
        self.log = log
    }

    func simpleEventDidTrigger(_ event: SimpleEventObservable) {
        log.add(name)
        onTrigger?(event)
    }
}

/// Virtual time since the start of a `TestLoop`, in milliseconds, for timelines.
@MainActor
func milliseconds(_ loop: some Loop) -> Int64 {
    loop.now.nanoseconds / 1_000_000
}
