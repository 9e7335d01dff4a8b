import Dispatch
import MainlineLoopCore

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
    /// inspector changes nothing. The job holds the loop's core weakly: it must never be what keeps a core alive, or
    /// the core would end inside its own post phase. (A weak reference to the core, not to the loop: retains of
    /// `MainLoop.main` are on every caller's post path, and a weakly referenced object's are slower.)
    func snapshot(of core: _LoopCore, state: MainLoop.State) -> (snapshot: LoopSnapshot?, fresh: Bool) {
        let running = state == .owner || state == .guest
        let mustPost =
            running
            && self.state.withLock { state in
                guard !state.inFlight else { return false }
                state.inFlight = true
                return true
            }
        if mustPost {
            let snapshotState = LoopSnapshot.State(state)
            let result = core.post(
                { [weak core, state = self.state, arrived] in
                    let snapshot = core?.snapshot(loop: "MainLoop", state: snapshotState, now: _MonotonicClock.now())
                    state.withLock {
                        $0.latest = snapshot
                        $0.inFlight = false
                    }
                    arrived.signal()
                },
                site: Self.site
            )
            if case .closed = result { self.state.withLock { $0.inFlight = false } }
            if case .full = result { self.state.withLock { $0.inFlight = false } }
        }
        // A signal left over from a job that arrived after an earlier wait ended is not this one's: take them all.
        let fresh = mustPost && arrived.wait(timeout: .now() + Self.wait) == .success
        while arrived.wait(timeout: .now()) == .success {}
        return (self.state.withLock { $0.latest }, fresh)
    }

    /// What the flight recorder and stall reports call the collecting job.
    private static let site = LoopSite(label: "inspector snapshot")
}
