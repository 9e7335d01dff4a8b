import CMainlineShims

/// Which loop the calling thread is running a phase of: how a thread-safe entry point tells "called from my
/// loop's own callback" (act now, on the main actor) from "called from anywhere else" (post into the loop).
///
/// The marker is thread-local, set by ``_LoopCore`` around each phase it runs, so reading it costs a load and
/// never allocates. All operations are thread-safe.
package enum _RunningLoop {
    /// Whether the calling thread is inside a phase of `loop` (timers, posts, settle, signal delivery, shutdown).
    ///
    /// `true` implies the caller is on the main actor: phases run nowhere else.
    @inline(__always)
    package static func isRunning(_ loop: AnyObject) -> Bool {
        mainline_running_loop() == UnsafeRawPointer(Unmanaged.passUnretained(loop).toOpaque())
    }

    /// Whether the calling thread is inside a phase of the loop whose identity is `identity`: the address of a
    /// `_LoopCore`'s `owner` as an integer (so that a `@Sendable` waker can capture it), never 0.
    @inline(__always)
    package static func isRunning(identity: UInt) -> Bool {
        UInt(bitPattern: mainline_running_loop()) == identity
    }

    /// Marks the calling thread as running `loop` for the duration of `body`, restoring the previous mark after.
    @inline(__always)
    static func with<R>(_ loop: UnsafeRawPointer?, _ body: () -> R) -> R {
        let previous = mainline_exchange_running_loop(loop)
        defer { _ = mainline_exchange_running_loop(previous) }
        return body()
    }
}
