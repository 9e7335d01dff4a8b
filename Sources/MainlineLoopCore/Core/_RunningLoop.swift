import CMainlineShims
import Dispatch

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

    /// Set in the mark of an `EventLoop`'s thread (``eventLoopMark(_:)``), so that ``isInsideAnyLoop`` — "on the main
    /// actor" — is never true there. Addresses are aligned: a real pointer never has it.
    package static let eventLoopTag: UInt = 1

    /// The mark an `EventLoop`'s thread carries while it runs the loop identified by `identity` (its driver's address).
    @inline(__always)
    package static func eventLoopMark(_ identity: UnsafeMutableRawPointer) -> UInt {
        UInt(bitPattern: identity) | eventLoopTag
    }

    /// Whether the calling thread is inside a phase of the loop whose mark is `identity`: the address of a
    /// `_LoopCore`'s `owner` as an integer (so that a `@Sendable` waker can capture it), or an `EventLoop`'s
    /// ``eventLoopMark(_:)``; never 0.
    @inline(__always)
    package static func isRunning(identity: UInt) -> Bool {
        UInt(bitPattern: mainline_running_loop()) == identity
    }

    /// Whether the calling thread is inside a phase of any main-actor loop (`MainLoop`, `TestLoop`).
    ///
    /// `true` implies the caller is on the main actor: phases run nowhere else. `false` says nothing (main-actor code
    /// outside a loop's callbacks reads `false` too).
    @inline(__always)
    package static var isInsideAnyLoop: Bool {
        let mark = UInt(bitPattern: mainline_running_loop())
        return mark != 0 && mark & eventLoopTag == 0
    }

    /// Whether the caller is provably on the main actor: inside a phase of a main-actor loop, or in a block of the
    /// dispatch main queue — the main actor's executor on Linux in every hosting mode (owner mode drains it, guest
    /// mode and Swift Testing run main-actor jobs on it).
    ///
    /// `false` means "not provably", never "certainly not": callers use it to pick a fast path that needs the main
    /// actor, and take the thread-safe path otherwise. Costs a thread-local load, and a `dispatch_get_specific` when
    /// outside the loop's phases; never allocates.
    package static var isOnMainActor: Bool {
        isInsideAnyLoop || DispatchQueue.getSpecific(key: mainQueueKey) != nil
    }

    /// A key only the dispatch main queue carries a value for (set once, on first use).
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Marks the calling thread as running `loop` for the duration of `body`, restoring the previous mark after.
    @inline(__always)
    package static func with<R>(_ loop: UnsafeRawPointer?, _ body: () -> R) -> R {
        let previous = mainline_exchange_running_loop(loop)
        defer { _ = mainline_exchange_running_loop(previous) }
        return body()
    }
}
