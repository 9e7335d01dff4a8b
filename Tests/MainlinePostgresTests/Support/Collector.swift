#if Postgres
import CMainlineShims
import MainlineEvents
import MainlineLoop
import MainlinePostgres
import PostgresNIO
import Testing

/// What a subscription delivered, taken from its mailbox on the main loop as a user's observer would.
///
/// Must be used on the main actor.
@MainActor
final class Collector {
    let mailbox: BoundedMailbox<StreamDelivery<String>>
    private(set) var events: [StreamEvent<String>] = []
    private(set) var resyncs: [StreamResync] = []
    private var token: SimpleEventToken?

    init(capacity: Int = 100_000) {
        mailbox = BoundedMailbox(capacity: capacity, overflow: .reject)
        mailbox.event.addObserver(&token) { [unowned self] _ in
            for delivery in self.mailbox.takeAll() {
                switch delivery {
                case .event(let event): self.events.append(event)
                case .resync(let resync): self.resyncs.append(resync)
                }
            }
        }
    }

    var values: [String] { events.map(\.value) }
    var sequences: [Int64] { events.map(\.sequence) }
}

/// Waits, on the main actor, until `condition` holds; records an issue naming `what` and fails after `timeout`.
///
/// A safety bound, not a measurement: the condition is the assertion.
@MainActor
func waitUntil(
    _ what: String,
    timeout: Duration = defaultWaitTimeout,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: @MainActor () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        if ContinuousClock.now >= deadline {
            Issue.record("timed out after \(timeout) waiting for \(what)", sourceLocation: sourceLocation)
            throw TimedOut()
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

struct TimedOut: Error {}

/// How long ``waitUntil(_:timeout:sourceLocation:_:)`` waits unless told: longer under ThreadSanitizer, where the main
/// actor these conditions are read on (and the mailboxes deliver on) is shared with every other suite of the run and a
/// 30-second wait for 200 events ran out in 2 of 5 full runs on a loaded machine, while the test alone takes 7 s.
let defaultWaitTimeout: Duration = mainline_is_thread_sanitized() != 0 ? .seconds(120) : .seconds(30)

/// The payloads as text: the tests publish UTF-8, and a payload that is not valid UTF-8 is refused.
let decodeText: @Sendable (ByteBuffer) throws -> String = { buffer in
    guard let text = String(validating: buffer.readableBytesView, as: UTF8.self) else { throw NotText() }
    return text
}

/// A stored payload that is not UTF-8.
struct NotText: Error {}
#endif
