import MainlineLoop

/// An observable that always has a value.
///
/// Must be used on the main actor (``values`` may be iterated anywhere).
///
/// Observers are called at once with the current value, then with every change, in the order they registered. A
/// value equal to the current one notifies no one when `T` is `Equatable` (conflation). Members of the value read
/// through the observable: `profile.name` is `profile.current.name`.
@MainActor
@dynamicMemberLookup
public class InitializedObservable<T> {
    @usableFromInline let core: _ObservableCore<T>

    init(core: _ObservableCore<T>) {
        self.core = core
    }

    /// The loop observers are called on.
    public final nonisolated var loop: any Loop { core.loop }

    /// The current value.
    @inlinable public final var current: T {
        guard case .value(let value) = core.state else {
            preconditionFailure("BUG DETECTED: an initialized observable holds no value")
        }
        return value
    }

    /// The current value, as an optional, for symmetry with ``UninitializedObservable/currentOrNil``.
    @inlinable public final var currentOrNil: T? { current }

    /// A member of the current value.
    @inlinable public final subscript<Member>(dynamicMember keyPath: KeyPath<T, Member>) -> Member {
        current[keyPath: keyPath]
    }

    /// Calls `onNext` now with the current value, then on every change, on the main actor.
    ///
    /// - Parameter onNext: The observer.
    /// - Returns: What ends the observation; dispose it (or add it to a ``DisposeBag``). Releasing it does not.
    @inlinable
    public final func observe(_ onNext: @escaping @MainActor (T) -> Void) -> Disposable {
        core.observe { state in
            if case .value(let value) = state { onNext(value) }
        }
    }

    /// How many observers are registered.
    public final var observerCount: Int { core.observerCount }
}

extension InitializedObservable where T: Sendable {
    /// The values, starting with the current one, as an `AsyncSequence` that conflates: a slow consumer skips
    /// intermediate values, never the latest.
    ///
    /// Must be read on the main actor; the sequence may then be iterated from any task (see ``ObservedValues``).
    /// Reading it adds an observer (at once: the current value is the first element), removed when the task iterating
    /// it is cancelled, or when the sequence and its iterators are gone. Each read is an observer of its own.
    public var values: ObservedValues<T> {
        ObservedValues { onNext in observe(onNext) }
    }
}
