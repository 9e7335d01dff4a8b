import CLibUV

/// Allocation of libuv loops and handles, with live counts so tests can prove shutdown leaks nothing.
///
/// All operations on `_UVResources` are thread-safe.
///
/// Every `uv_*_t` is allocated here on the heap and freed only in its `uv_close` callback, never as a Swift
/// stored property (libuv keeps pointers to handles until they are closed).
package enum _UVResources {
    /// Loops and handles currently allocated by Mainline, process-wide.
    package struct Counts: Equatable, Sendable, CustomStringConvertible {
        package var loops = 0
        package var handles = 0

        package var description: String { "\(loops) loops, \(handles) handles" }
    }

    private static let counts = _Locked(Counts())

    /// How many libuv loops and handles are allocated right now.
    package static var live: Counts { counts.withLock { $0 } }

    static func allocateLoop() -> UnsafeMutablePointer<uv_loop_t> {
        counts.withLock { $0.loops += 1 }
        return .allocate(capacity: 1)
    }

    static func deallocateLoop(_ loop: UnsafeMutablePointer<uv_loop_t>) {
        loop.deallocate()
        counts.withLock { $0.loops -= 1 }
    }

    /// Allocates an uninitialized handle of `type` (sized by libuv, so it matches the installed headers).
    static func allocateHandle<Handle>(_: Handle.Type, type: uv_handle_type) -> UnsafeMutablePointer<Handle> {
        precondition(uv_handle_size(type) <= MemoryLayout<Handle>.size, "libuv handle size mismatch")
        counts.withLock { $0.handles += 1 }
        return .allocate(capacity: 1)
    }

    /// Closes `handle` and frees it in its close callback. Does nothing when it is already closing.
    static func close<Handle>(_ handle: UnsafeMutablePointer<Handle>) {
        let generic = mainline_uv_handle(handle)
        guard uv_is_closing(generic) == 0 else { return }
        uv_close(generic, _mainlineFreeClosedHandle)
    }

    fileprivate static func didFreeHandle() {
        counts.withLock { $0.handles -= 1 }
    }
}

/// libuv's close callback for every Mainline handle: the handle's memory is released here and nowhere else.
private func _mainlineFreeClosedHandle(_ handle: UnsafeMutablePointer<uv_handle_t>?) {
    guard let handle else { return }
    UnsafeMutableRawPointer(handle).deallocate()
    _UVResources.didFreeHandle()
}
