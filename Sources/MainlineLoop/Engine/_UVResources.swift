import CLibUV
import MainlineLoopCore

/// Allocation of libuv loops and handles, with live counts so tests can prove shutdown leaks nothing.
///
/// All operations on `_UVResources` are thread-safe.
///
/// Every `uv_*_t` is allocated here on the heap and freed only in its `uv_close` callback, never as a Swift
/// stored property (libuv keeps pointers to handles until they are closed).
///
/// Counts are kept per ``Owner`` and, for main loops, per loop instance, so that a test can prove that the loop it
/// made leaks nothing while tests of other loops (main loops included) run in parallel.
package enum _UVResources {
    /// Loops and handles currently allocated by Mainline.
    package struct Counts: Equatable, Sendable, CustomStringConvertible {
        package var loops = 0
        package var handles = 0

        package init(loops: Int = 0, handles: Int = 0) {
            self.loops = loops
            self.handles = handles
        }

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
        /// The `EventLoop` a `LoopInspector` serves its socket from (MainlineInspection): counted apart, so that the
        /// `EventLoop`s' leak checks hold while inspectors start and stop beside them.
        case inspector
    }

    private struct Ledger {
        var mainLoop = Counts()
        var eventLoop = Counts()
        var inspector = Counts()
        /// Counts per loop instance (only for allocations that named one); entries at zero are removed.
        var byInstance: [ObjectIdentifier: Counts] = [:]
        /// The instance each live handle was allocated for, so that its close callback can find it.
        var instanceOfHandle: [UnsafeMutableRawPointer: ObjectIdentifier] = [:]

        subscript(owner: Owner) -> Counts {
            get {
                switch owner {
                case .mainLoop: mainLoop
                case .eventLoop: eventLoop
                case .inspector: inspector
                }
            }
            set {
                switch owner {
                case .mainLoop: mainLoop = newValue
                case .eventLoop: eventLoop = newValue
                case .inspector: inspector = newValue
                }
            }
        }

        mutating func update(_ instance: ObjectIdentifier?, _ change: (inout Counts) -> Void) {
            guard let instance else { return }
            var counts = byInstance[instance] ?? Counts()
            change(&counts)
            byInstance[instance] = counts == Counts() ? nil : counts
        }
    }

    private static let ledger = _Locked(Ledger())

    /// How many libuv loops and handles are allocated right now, process-wide (every owner).
    package static var live: Counts { ledger.withLock { $0.mainLoop + $0.eventLoop + $0.inspector } }

    /// How many libuv loops and handles `owner` has allocated right now.
    package static func live(_ owner: Owner) -> Counts { ledger.withLock { $0[owner] } }

    /// How many libuv loops and handles are allocated right now for `instance` (a `MainLoop`).
    ///
    /// Unlike ``live(_:)``, other loops of the same kind never change it: tests that check one loop for leaks can
    /// run in parallel with anything.
    package static func live(of instance: AnyObject) -> Counts {
        ledger.withLock { $0.byInstance[ObjectIdentifier(instance)] ?? Counts() }
    }

    static func allocateLoop(
        for owner: Owner = .mainLoop,
        instance: ObjectIdentifier? = nil
    ) -> UnsafeMutablePointer<uv_loop_t> {
        ledger.withLock {
            $0[owner].loops += 1
            $0.update(instance) { $0.loops += 1 }
        }
        return .allocate(capacity: 1)
    }

    static func deallocateLoop(
        _ loop: UnsafeMutablePointer<uv_loop_t>,
        for owner: Owner = .mainLoop,
        instance: ObjectIdentifier? = nil
    ) {
        loop.deallocate()
        ledger.withLock {
            $0[owner].loops -= 1
            $0.update(instance) { $0.loops -= 1 }
        }
    }

    /// Allocates an uninitialized handle of `type` (sized by libuv, so it matches the installed headers).
    ///
    /// - Parameters:
    ///   - owner: Which kind of loop the handle belongs to.
    ///   - instance: The loop instance to count it for as well (see ``live(of:)``), if any.
    package static func allocateHandle<Handle>(
        _: Handle.Type,
        type: uv_handle_type,
        for owner: Owner = .mainLoop,
        instance: ObjectIdentifier? = nil
    ) -> UnsafeMutablePointer<Handle> {
        precondition(uv_handle_size(type) <= MemoryLayout<Handle>.size, "libuv handle size mismatch")
        let handle = UnsafeMutablePointer<Handle>.allocate(capacity: 1)
        ledger.withLock {
            $0[owner].handles += 1
            $0.update(instance) { $0.handles += 1 }
            if let instance { $0.instanceOfHandle[UnsafeMutableRawPointer(handle)] = instance }
        }
        return handle
    }

    /// Closes `handle` and frees it in its close callback. Does nothing when it is already closing.
    ///
    /// - Parameter owner: Who allocated the handle (as passed to ``allocateHandle(_:type:for:instance:)``).
    package static func close<Handle>(_ handle: UnsafeMutablePointer<Handle>, for owner: Owner = .mainLoop) {
        let generic = mainline_uv_handle(handle)
        guard uv_is_closing(generic) == 0 else { return }
        switch owner {
        case .mainLoop: uv_close(generic, _mainlineFreeClosedHandle)
        case .eventLoop: uv_close(generic, _mainlineFreeClosedEventLoopHandle)
        case .inspector: uv_close(generic, _mainlineFreeClosedInspectorHandle)
        }
    }

    fileprivate static func didFreeHandle(_ handle: UnsafeMutableRawPointer, of owner: Owner) {
        ledger.withLock {
            $0[owner].handles -= 1
            let instance = $0.instanceOfHandle.removeValue(forKey: handle)
            $0.update(instance) { $0.handles -= 1 }
        }
    }
}

// libuv's close callbacks for every Mainline handle, one per owner: the handle's memory is released here and
// nowhere else.

private func _mainlineFreeClosedHandle(_ handle: UnsafeMutablePointer<uv_handle_t>?) {
    guard let handle else { return }
    let raw = UnsafeMutableRawPointer(handle)
    // Forget the address before freeing it: once freed, the allocator may hand it out again.
    _UVResources.didFreeHandle(raw, of: .mainLoop)
    raw.deallocate()
}

private func _mainlineFreeClosedEventLoopHandle(_ handle: UnsafeMutablePointer<uv_handle_t>?) {
    guard let handle else { return }
    let raw = UnsafeMutableRawPointer(handle)
    _UVResources.didFreeHandle(raw, of: .eventLoop)
    raw.deallocate()
}

private func _mainlineFreeClosedInspectorHandle(_ handle: UnsafeMutablePointer<uv_handle_t>?) {
    guard let handle else { return }
    let raw = UnsafeMutableRawPointer(handle)
    _UVResources.didFreeHandle(raw, of: .inspector)
    raw.deallocate()
}
