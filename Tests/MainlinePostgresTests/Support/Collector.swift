#if Postgres
import CMainlineShims
import MainlineEvents
import MainlineLoop
import MainlinePostgres
import PostgresNIO
import Testing
import _MainlineTestSupport

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

/// Waits, on the main actor, until `condition` holds: a wait on **progress**, not a deadline.
///
/// It fails only when nothing it can see has moved for `stall` — `state`, a description of what each side is doing
/// (events collected, events published, the subscriber's connections), has not changed — and the issue it records
/// says how long it waited in all and what that state was. A slow machine (the whole suite on two busy cores,
/// ThreadSanitizer) makes a wait longer, never a failure: a test that asserts "nothing lost, nothing repeated" must not
/// depend on a wall-clock rate. Without a `state`, the stall bound is the whole wait.
@MainActor
func waitUntil(
    _ what: String,
    stall: Duration = defaultStallLimit,
    state: @MainActor () -> String = { "" },
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: @MainActor () async throws -> Bool
) async throws {
    var standStill = StandStill<String>(limit: stall)
    while try await !condition() {
        let current = state()
        if standStill.hasStoodStill(current) {
            let doing = current.isEmpty ? "" : "; what each side was doing: \(current)"
            Issue.record(
                "waited \(standStill.waited) for \(what), and nothing moved in the last \(stall)\(doing)",
                sourceLocation: sourceLocation
            )
            throw TimedOut()
        }
        // Polls the main actor's state; the loop delivers in between.
        try await Task.sleep(for: .milliseconds(10))
    }
}

struct TimedOut: Error {}

/// How long ``waitUntil(_:stall:state:sourceLocation:_:)`` lets nothing move before it fails: longer under
/// ThreadSanitizer, where the main actor these conditions are read on (and the mailboxes deliver on) is shared with
/// every other suite of the run. No healthy step of these tests stands still this long: alone, the longest test takes
/// 7 s in all.
let defaultStallLimit: Duration = mainline_is_thread_sanitized() != 0 ? .seconds(240) : .seconds(60)

extension Collector {
    /// What the collector has, for a wait's progress: how many events and resyncs, and the last sequence.
    var progress: String {
        "collected \(events.count) events (last sequence \(events.last?.sequence ?? 0)), \(resyncs.count) resyncs"
    }
}

/// How many events a test's publishing task has committed so far, for a wait's progress.
@MainActor
final class PublishedCount {
    var count = 0
    var progress: String { "published \(count) events" }
}

/// What a subscriber is doing, for a wait's progress.
@MainActor
func progress(of subscriber: StreamSubscriber) -> String {
    let counts = subscriber.counts
    return
        "subscriber \(counts.isConnected ? "listening" : "not listening") after \(counts.connections) connections and "
        + "\(counts.connectionFailures) failures"
}

/// The payloads as text: the tests publish UTF-8, and a payload that is not valid UTF-8 is refused.
let decodeText: @Sendable (ByteBuffer) throws -> String = { buffer in
    guard let text = String(validating: buffer.readableBytesView, as: UTF8.self) else { throw NotText() }
    return text
}

/// A stored payload that is not UTF-8.
struct NotText: Error {}
#endif
