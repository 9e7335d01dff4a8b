import MainlineLoop

/// An observable that may have no value yet: it starts with nothing, and its observers see `nil` until a value
/// arrives.
///
/// Must be used on the main actor (``values`` may be iterated anywhere).
///
/// Observers are called at once with the current value (`nil` for nothing), then with every change, in the order
/// they registered. A value equal to the current one notifies no one when `T` is `Equatable` (conflation); when it
/// is not, every value notifies. For an optional `T`, a `nil` value is a value: ``current`` is `.value(nil)`.
@MainActor
public class UninitializedObservable<T> {
    @usableFromInline let core: _ObservableCore<T>

    init(core: _ObservableCore<T>) {
        self.core = core
    }

    /// The loop observers are called on.
    public final nonisolated var loop: any Loop { core.loop }

    /// The current value, or `.nothing`.
    @inlinable public final var current: ObservableOptional<T> { core.state }

    /// The current value, or `nil` for nothing.
    @inlinable public final var currentOrNil: T? { core.state.valueOrNil }

    /// Calls `onNext` now with the current value (`nil` for nothing), then on every change, on the main actor.
    ///
    /// - Parameter onNext: The observer.
    /// - Returns: What ends the observation; dispose it (or add it to a ``DisposeBag``). Releasing it does not.
    @inlinable
    public final func observe(_ onNext: @escaping @MainActor (T?) -> Void) -> Disposable {
        core.observe { onNext($0.valueOrNil) }
    }

    /// How many observers are registered.
    public final var observerCount: Int { core.observerCount }
}

extension UninitializedObservable where T: Sendable {
    /// The values, starting with the current one (`nil` for nothing), as an `AsyncSequence` that conflates: a slow
    /// consumer skips intermediate values, never the latest.
    ///
    /// Must be read on the main actor; the sequence may then be iterated from any task (see ``ObservedValues``).
    /// Reading it adds an observer (at once: the current value is the first element), removed when the task iterating
    /// it is cancelled, or when the sequence and its iterators are gone. Each read is an observer of its own.
    public var values: ObservedValues<T?> {
        ObservedValues { onNext in observe(onNext) }
    }
}
