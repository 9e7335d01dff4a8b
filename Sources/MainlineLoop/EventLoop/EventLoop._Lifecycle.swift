import Dispatch

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
        private var asyncWaiters: [CheckedContinuation<Void, Never>] = []
        private var blockedWaiters: [DispatchSemaphore] = []

        /// What `uv_loop_close` returned (0: every handle was closed), once the loop has stopped.
        var closeResult: Int32? {
            guard case .stopped(let result) = phase else { return nil }
            return result
        }

        /// Registers a suspended waiter. Returns `false` (not registered: resume it now) when already stopped.
        mutating func addWaiter(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
            guard case .running = phase else { return false }
            asyncWaiters.append(continuation)
            return true
        }

        /// Registers a blocked thread. Returns `false` (not registered: don't wait) when already stopped.
        mutating func addBlockedWaiter(_ semaphore: DispatchSemaphore) -> Bool {
            guard case .running = phase else { return false }
            blockedWaiters.append(semaphore)
            return true
        }

        /// The loop thread closed the libuv loop. Returns everyone to wake.
        mutating func didStop(closeResult: Int32) -> ([CheckedContinuation<Void, Never>], [DispatchSemaphore]) {
            guard case .running = phase else {
                preconditionFailure("BUG DETECTED: an EventLoop stopped twice (close result \(closeResult))")
            }
            phase = .stopped(closeResult: closeResult)
            defer {
                asyncWaiters = []
                blockedWaiters = []
            }
            return (asyncWaiters, blockedWaiters)
        }
    }
}
