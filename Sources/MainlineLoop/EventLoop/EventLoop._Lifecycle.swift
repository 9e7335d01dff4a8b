import MainlineLoopCore

extension EventLoop {
    /// Where an event loop is in its life, and who waits for its end.
    ///
    /// A value type kept in a `_Locked` by the driver: every method runs under that lock and returns what the caller
    /// must do outside it (resume continuations, signal semaphores).
    ///
    /// `running → stopped`. Whether `stop()` was called is the job queue's business (it refuses posts from then on); the
    /// lifecycle only records the end: the loop thread closed every handle and the libuv loop.
    struct _Lifecycle {
        private enum Phase {
            /// The thread runs libuv (possibly already draining after `stop()`).
            case running
            /// The thread closed the libuv loop; `uv_loop_close` returned `closeResult`.
            case stopped(closeResult: Int32)
        }

        private var phase = Phase.running
        /// Suspended tasks and blocked threads waiting for the end, in the order they came.
        private var waiters: [_StopWaiter] = []

        /// What `uv_loop_close` returned (0: every handle was closed), once the loop has stopped.
        var closeResult: Int32? {
            guard case .stopped(let result) = phase else { return nil }
            return result
        }

        /// Registers a waiter: a suspended task (`waitUntilStopped()`) or a blocked thread (`stopAndWait()`). Returns
        /// `false` (not registered: resume it now, or don't wait) when already stopped.
        mutating func addWaiter(_ waiter: _StopWaiter) -> Bool {
            guard case .running = phase else { return false }
            waiters.append(waiter)
            return true
        }

        /// The loop thread closed the libuv loop. Returns everyone to wake.
        mutating func didStop(closeResult: Int32) -> [_StopWaiter] {
            guard case .running = phase else {
                preconditionFailure("BUG DETECTED: an EventLoop stopped twice (close result \(closeResult))")
            }
            phase = .stopped(closeResult: closeResult)
            defer { waiters = [] }
            return waiters
        }
    }
}
