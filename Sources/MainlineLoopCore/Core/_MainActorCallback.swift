/// Main-actor code called from a C or dispatch callback that the hosting modes guarantee runs on the main actor.
///
/// `MainActor.assumeIsolated` allocates a closure context on every call (measured on this toolchain: one 32-byte
/// `malloc` per call), and the loop's callbacks run on every wake-up. A `_MainActorCallback` converts a
/// non-capturing main-actor function once, when it is created, and then calls it without allocating. Debug builds
/// still check on every call that the caller is on the main actor.
///
/// All operations on `_MainActorCallback` are thread-safe; calling it is allowed only on the main actor.
package struct _MainActorCallback<Target>: @unchecked Sendable {
    // @unchecked Sendable: `body` was a `@MainActor` (hence Sendable) function; only its isolation was erased, and
    // `callAsFunction` is documented (and checked in debug builds) to run on the main actor.
    private let body: (Target) -> Void

    /// Wraps `body`, which should capture nothing (the target is passed in at each call).
    package init(_ body: @escaping @MainActor (Target) -> Void) {
        self.body = unsafeBitCast(body, to: ((Target) -> Void).self)
    }

    /// Calls the function with `target`. Must be called on the main actor.
    @inline(__always)
    package func callAsFunction(_ target: Target) {
        #if DEBUG
        MainActor.preconditionIsolated("BUG DETECTED: a loop callback ran off the main actor")
        #endif
        body(target)
    }
}
