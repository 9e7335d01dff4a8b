import MainlineLoop

/// A read-only initialized observable fed by optional values, where `nil` stands for a default.
///
/// Must be used on the main actor (``InitializedObservable/values`` may be iterated anywhere).
///
/// Made by ``observableOf(_:default:loop:)`` from an `AsyncSequence` of optional values. For a writable one, see
/// ``DefaultSubject``.
@MainActor
public final class DefaultObservable<T: Sendable>: InitializedObservable<T> {
    /// The value `nil` stands for.
    public nonisolated let defaultValue: T

    init(default defaultValue: T, loop: any Loop) {
        self.defaultValue = defaultValue
        super.init(core: _ObservableCore(loop: loop, state: .value(defaultValue)))
    }
}
