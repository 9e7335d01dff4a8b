import CLibUV

/// Allocation of libuv loops and handles, with live counts so tests can prove shutdown leaks nothing.
///
/// All operations on `_UVResources` are thread-safe.
///
/// Every `uv_*_t` is allocated here on the heap and freed only in its `uv_close` callback, never as a Swift
/// stored property (libuv keeps pointers to handles until they are closed).
///
/// Counts are kept per ``Owner`` as well as in total, so that a test of one kind of loop can prove it leaks
/// nothing while tests of the other kind run in parallel.
package enum _UVResources {
    /// Loops and handles currently allocated by Mainline.
    package struct Counts: Equatable, Sendable, CustomStringConvertible {
        package var loops = 0
        package var handles = 0

        package var description: String { "\(loops) loops, \(handles) handles" }

        static func + (lhs: Counts, rhs: Counts) -> Counts {
            Counts(loops: lhs.loops + rhs.loops, handles: lhs.handles + rhs.handles)
        }
    }

    /// What kind of loop a libuv loop or handle belongs to.
    package enum Owner: Sendable {
        /// A `MainLoop`'s driver.
        case mainLoop
        /// A secondary `EventLoop`.
        case eventLoop
    }

    private struct Ledger {
        var mainLoop = Counts()
        var eventLoop = Counts()

        subscript(owner: Owner) -> Counts {
            get { owner == .mainLoop ? mainLoop : eventLoop }
            set { if owner == .mainLoop { mainLoop = newValue } else { eventLoop = newValue } }
        }
    }

    private static let ledger = _Locked(Ledger())

    /// How many libuv loops and handles are allocated right now, process-wide (every owner).
    package static var live: Counts { ledger.withLock { $0.mainLoop + $0.eventLoop } }

    /// How many libuv loops and handles `owner` has allocated right now.
    package static func live(_ owner: Owner) -> Counts { ledger.withLock { $0[owner] } }

    static func allocateLoop(for owner: Owner = .mainLoop) -> UnsafeMutablePointer<uv_loop_t> {
        ledger.withLock { $0[owner].loops += 1 }
        return .allocate(capacity: 1)
    }

    static func deallocateLoop(_ loop: UnsafeMutablePointer<uv_loop_t>, for owner: Owner = .mainLoop) {
        loop.deallocate()
        ledger.withLock { $0[owner].loops -= 1 }
    }

    /// Allocates an uninitialized handle of `type` (sized by libuv, so it matches the installed headers).
    static func allocateHandle<Handle>(
        _: Handle.Type,
        type: uv_handle_type,
        for owner: Owner = .mainLoop
    ) -> UnsafeMutablePointer<Handle> {
        precondition(uv_handle_size(type) <= MemoryLayout<Handle>.size, "libuv handle size mismatch")
        ledger.withLock { $0[owner].handles += 1 }
        return .allocate(capacity: 1)
    }

    /// Closes `handle` and frees it in its close callback. Does nothing when it is already closing.
    ///
    /// - Parameter owner: Who allocated the handle (as passed to ``allocateHandle(_:type:for:)``).
    static func close<Handle>(_ handle: UnsafeMutablePointer<Handle>, for owner: Owner = .mainLoop) {
        let generic = mainline_uv_handle(handle)
        guard uv_is_closing(generic) == 0 else { return }
        switch owner {
        case .mainLoop: uv_close(generic, _mainlineFreeClosedHandle)
        case .eventLoop: uv_close(generic, _mainlineFreeClosedEventLoopHandle)
        }
    }

    fileprivate static func didFreeHandle(of owner: Owner) {
        ledger.withLock { $0[owner].handles -= 1 }
    }
}

// libuv's close callbacks for every Mainline handle, one per owner: the handle's memory is released here and
// nowhere else.

private func _mainlineFreeClosedHandle(_ handle: UnsafeMutablePointer<uv_handle_t>?) {
    guard let handle else { return }
    UnsafeMutableRawPointer(handle).deallocate()
    _UVResources.didFreeHandle(of: .mainLoop)
}

private func _mainlineFreeClosedEventLoopHandle(_ handle: UnsafeMutablePointer<uv_handle_t>?) {
    guard let handle else { return }
    UnsafeMutableRawPointer(handle).deallocate()
    _UVResources.didFreeHandle(of: .eventLoop)
}
