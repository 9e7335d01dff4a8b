import Dispatch

/// Takes a main-actor loop's snapshot for an inspector, from the inspector's thread: posts one job that takes it, and
/// waits a little for it. A loop that is stalled (or flooded) answers late: the inspector then shows the last snapshot
/// that arrived, marked as not fresh, and posts no second job while the first one waits.
///
/// All operations on `_LoopSnapshotCollector` are thread-safe.
final class _LoopSnapshotCollector: Sendable {
    private struct State {
        var inFlight = false
        var latest: LoopSnapshot?
    }

    private let state = _Locked(State())
    private let arrived = DispatchSemaphore(value: 0)

    /// How long the inspector waits for the loop to take the snapshot.
    static let wait: DispatchTimeInterval = .milliseconds(50)

    /// The loop's snapshot: fresh when the loop took it within ``wait``, else the last one it took (or `nil`).
    ///
    /// Posts only to a loop that is running (hosted as owner or guest): a post would start an idle loop, and an
    /// inspector changes nothing.
    func snapshot(of loop: MainLoop) -> (snapshot: LoopSnapshot?, fresh: Bool) {
        let running = loop.state == .owner || loop.state == .guest
        let mustPost = running && state.withLock { state in
            guard !state.inFlight else { return false }
            state.inFlight = true
            return true
        }
        if mustPost {
            let posted = loop.post(label: "inspector snapshot") { [state, arrived] in
                let snapshot = loop.snapshot()
                state.withLock {
                    $0.latest = snapshot
                    $0.inFlight = false
                }
                arrived.signal()
            }
            if !posted { state.withLock { $0.inFlight = false } }
        }
        // A signal left over from a job that arrived after an earlier wait ended is not this one's: take them all.
        let fresh = mustPost && arrived.wait(timeout: .now() + Self.wait) == .success
        while arrived.wait(timeout: .now()) == .success {}
        return (state.withLock { $0.latest }, fresh)
    }
}
