import CMainlineShims
import MainlineLoop
import MainlineLoopCore

/// A heartbeat the stall watchdog keeps queued on the dispatch main queue, to see main-actor work that is not one of
/// the loop's callbacks (see `_StallWatchdog`).
///
/// All operations on `_MainActorHeartbeat` are thread-safe. One heartbeat is outstanding at a time; sending one costs a
/// lock and a `dispatch_async_f` (no allocation), once per watchdog check while none is outstanding.
final class _MainActorHeartbeat: @unchecked Sendable {
    // @unchecked Sendable: every `var` is protected by `lock`.
    private let lock = _Lock()
    private var generation: UInt64 = 0
    private var sentAt: UInt64 = 0
    private var isOutstanding = false
    /// When the last heartbeat ran, and which one it was.
    private var lastRan: (generation: UInt64, at: UInt64) = (0, 0)

    /// The heartbeat queued and not yet run: its generation and when it was sent.
    var outstanding: (generation: UInt64, sentAt: UInt64)? {
        lock.withLock { isOutstanding ? (generation, sentAt) : nil }
    }

    /// When heartbeat `generation` ran, once it has.
    func ranAt(generation: UInt64) -> UInt64? {
        lock.withLock { lastRan.generation == generation ? lastRan.at : nil }
    }

    /// Queues a heartbeat on the main queue unless one is already waiting there.
    func sendIfNoneOutstanding() {
        let send: Bool = lock.withLock {
            guard !isOutstanding else { return false }
            isOutstanding = true
            generation &+= 1
            sentAt = _MonotonicClock.nanoseconds()
            return true
        }
        // Retained until it runs: a heartbeat queued when the watchdog stops still runs, harmlessly.
        if send { mainline_dispatch_async_main(Unmanaged.passRetained(self).toOpaque(), _mainlineHeartbeatRan) }
    }

    fileprivate func ran() {
        let now = _MonotonicClock.nanoseconds()
        lock.withLock {
            isOutstanding = false
            lastRan = (generation, now)
        }
    }
}

/// The main-queue work function of a heartbeat: takes back the reference retained when it was queued.
private func _mainlineHeartbeatRan(_ context: UnsafeMutableRawPointer?) {
    Unmanaged<_MainActorHeartbeat>.fromOpaque(context!).takeRetainedValue().ran()
}
