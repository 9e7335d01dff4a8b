import MainlineLoop

/// An initialized observable you can write: ``value`` and ``update(_:)`` on the main actor, ``post(_:)`` from any
/// thread, ``set(_:)`` to wait until applied.
///
/// Must be used on the main actor, except ``post(_:)`` and ``set(_:)``, which any thread may call.
///
/// ```swift
/// let count = InitializedSubject(0)
/// let observation = count.observe { print($0) }   // prints 0
/// count.value += 1                                // prints 1
/// Thread.detachNewThread { count.post(5) }        // prints 5, on the loop
/// ```
@MainActor
public class InitializedSubject<T>: InitializedObservable<T> {
    /// Creates a subject holding `initial`.
    ///
    /// - Parameters:
    ///   - initial: The first value.
    ///   - loop: The loop observers are called on; the main loop unless a test passes a `TestLoop`.
    public init(_ initial: T, loop: any Loop = MainLoop.main) {
        super.init(core: _ObservableCore(loop: loop, state: .value(initial)))
    }

    /// The current value; setting it notifies the observers at once (unless it is equal to the current one).
    @inlinable public final var value: T {
        get { current }
        set { core.apply(.value(newValue)) }
    }

    /// Sets the value now and notifies the observers (unless it equals the current one).
    ///
    /// - Parameter value: The new value.
    @inlinable
    public final func update(_ value: T) {
        core.apply(.value(value))
    }
}

extension InitializedSubject where T: Sendable {
    /// Sets the value on the loop, soon. Thread-safe; never blocks. Values posted from one thread are applied in the
    /// order they were posted.
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
