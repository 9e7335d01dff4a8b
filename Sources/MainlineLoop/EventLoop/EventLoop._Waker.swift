import CLibUV

extension EventLoop {
    /// Wakes an event loop's thread from any thread, until the loop disconnects it at shutdown.
    ///
    /// All operations on `_Waker` are thread-safe.
    ///
    /// `uv_async_send` is libuv's one thread-safe call, but only while the handle is open. The pointer is read and
    /// cleared under `lock`, and `uv_async_send` runs under it too: once ``disconnect()`` has returned, no thread can
    /// still be signalling the handle, so the loop may close and free it.
    final class _Waker: @unchecked Sendable {
        // @unchecked Sendable: `handle` is protected by `lock`; libuv's `uv_async_send` is thread-safe.
        private let lock = _Lock()
        private var handle: UnsafeMutablePointer<uv_async_t>?

        init(_ handle: UnsafeMutablePointer<uv_async_t>) {
            self.handle = handle
        }

        /// Makes the loop run its async callback soon (coalesced by libuv). Does nothing after ``disconnect()``.
        func wake() {
            lock.withLock {
                if let handle { uv_async_send(handle) }
            }
        }

        /// Stops waking for good. Called on the loop thread before the async handle is closed.
        func disconnect() {
            lock.withLock { handle = nil }
        }
    }
}
