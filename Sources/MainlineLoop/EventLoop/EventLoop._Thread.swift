import CDispatch
import CMainlineShims
import MainlineLoopCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension EventLoop {
    /// The thread an event loop runs on. ("Am I on this loop?" is answered by `_RunningLoop`, which the loop thread
    /// sets while it runs.)
    ///
    /// All operations on `_Thread` are thread-safe.
    ///
    /// A loop thread is a detached pthread: nothing joins it. The loop's end is observed through the lifecycle
    /// (`waitUntilStopped`, `stopAndWait`), which the thread signals as the last thing it does with the loop.
    package enum _Thread {
        /// Linux limits thread names to 15 bytes; longer names are cut at a character boundary.
        static let maximumNameBytes = 15

        /// Starts a detached thread named `name` (cut to ``maximumNameBytes``) that runs `body`.
        package static func start(name: String, _ body: @escaping @Sendable () -> Void) {
            let start = _Start(name: osName(name), body: body)
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            defer { pthread_attr_destroy(&attributes) }
            pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
            var thread = pthread_t()
            let context = Unmanaged.passRetained(start).toOpaque()
            let rc = pthread_create(&thread, &attributes, _mainlineEventLoopThreadMain, context)
            guard rc == 0 else {
                Unmanaged<_Start>.fromOpaque(context).release()
                preconditionFailure("EventLoop could not start its thread '\(name)': pthread_create returned \(rc)")
            }
        }

        private static func osName(_ name: String) -> String {
            var result = ""
            var bytes = 0
            for character in name {
                bytes += character.utf8.count
                guard bytes <= maximumNameBytes else { break }
                result.append(character)
            }
            return result
        }

        /// What a new thread needs, passed through `pthread_create`'s context pointer.
        fileprivate final class _Start {
            let name: String
            let body: @Sendable () -> Void

            init(name: String, body: @escaping @Sendable () -> Void) {
                self.name = name
                self.body = body
            }
        }
    }
}

/// The entry point of every event-loop thread (a C function pointer cannot capture context).
private func _mainlineEventLoopThreadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let start = Unmanaged<EventLoop._Thread._Start>.fromOpaque(context!).takeRetainedValue()
    _ = mainline_set_current_thread_name(start.name)
    start.body()
    return nil
}
