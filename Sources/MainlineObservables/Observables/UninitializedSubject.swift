import MainlineLoop

/// An uninitialized observable you can write: it starts with nothing; ``post(_:)`` from any thread, ``set(_:)``
/// to wait until applied, ``update(_:)`` on the main actor.
///
/// Must be used on the main actor, except ``post(_:)`` and ``set(_:)``, which any thread may call.
///
/// ```swift
/// let status = UninitializedSubject<String>()
/// let observation = status.observe { print($0 ?? "—") }   // prints "—"
/// worker.onProgress { status.post("\($0) %") }            // from the worker's thread
/// ```
@MainActor
public final class UninitializedSubject<T>: UninitializedObservable<T> {
    /// Creates a subject with no value.
    ///
    /// - Parameter loop: The loop observers are called on; the main loop unless a test passes a `TestLoop`.
    public init(loop: any Loop = MainLoop.main) {
        super.init(core: _ObservableCore(loop: loop, state: .nothing))
    }

    /// Sets the value now and notifies the observers (unless it equals the current one).
    ///
    /// - Parameter value: The new value (`nil` is a value when `T` is optional).
    @inlinable
    public func update(_ value: T) {
        core.apply(.value(value))
    }
}

extension UninitializedSubject where T: Sendable {
    /// Sets the value on the loop, soon. Thread-safe; never blocks. Values posted from one thread are applied in the
    /// order they were posted; a value posted before anyone observes is kept.
    ///
    /// - Parameter value: The new value.
    /// - Returns: `false` if the loop has stopped and the value will never be applied.
    @inlinable @discardableResult
    public nonisolated func post(_ value: T) -> Bool {
        core.post(.value(value))
    }

    /// Sets the value on the loop and returns once it has been applied. Callable from any task.
    ///
    /// - Parameter value: The new value.
    /// - Returns: `false` if the loop has stopped and nothing was applied.
    @discardableResult
    public nonisolated func set(_ value: T) async -> Bool {
        await core.set(.value(value))
    }
}
