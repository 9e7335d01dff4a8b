import MainlineLoop

/// Ends something — an observation, a binding, a resumed span's work — when disposed: at most once, from any
/// thread.
///
/// All operations on `Disposable` are thread-safe.
///
/// ```swift
/// let bag = DisposeBag()
/// subject.observe { print($0) }.addTo(bag)
/// // …
/// bag.dispose()   // every observation added to it ends
/// ```
///
/// A `Disposable` does **not** dispose itself when it is released (as in Kaluga): keep it, or add it to a
/// ``DisposeBag``, which disposes what it holds when it is released. A `SimpleEventToken` can be owned by one
/// (``init(_:)-(SimpleEventToken)``, `token.addTo(bag)`).
///
/// Ending an observation follows one rule for disposables and tokens alike (MainlineEvents' "Observers: rounds,
/// endings and nesting"): from the moment ``dispose()`` returns, no notification round calls the observer — even one
/// running now, and whatever the thread; the observer leaves its list, and is released, on the loop: at once when
/// disposed inside the loop's phases, in a job posted to the loop otherwise.
public final class Disposable: Sendable {
    private let handler: _Locked<(@Sendable () -> Void)?>

    /// Creates a disposable that runs `onDispose` when first disposed.
    ///
    /// - Parameter onDispose: Runs at most once, on the thread that calls ``dispose()``.
    public init(_ onDispose: @escaping @Sendable () -> Void) {
        handler = _Locked(onDispose)
    }

    /// A disposable with nothing to do.
    public static var empty: Disposable { Disposable {} }

    /// Runs the handler, the first time only. Thread-safe; later calls do nothing.
    public func dispose() {
        let onDispose = handler.withLock { handler in
            defer { handler = nil }
            return handler
        }
        onDispose?()
    }

    /// Whether ``dispose()`` was called.
    public var isDisposed: Bool { handler.withLock { $0 == nil } }

    /// Adds the disposable to `bag`, which disposes it when the bag is disposed or released.
    ///
    /// - Parameter bag: The bag.
    /// - Returns: The disposable itself, for chaining.
    @discardableResult
    public func addTo(_ bag: DisposeBag) -> Disposable {
        bag.add(self)
        return self
    }
}
