import Atomics

/// One observer of an observable: its block, and a flag any thread may set to stop it.
///
/// `isDisposed` is thread-safe; `onNext` may be called only on the main actor.
@usableFromInline
final class _Subscription<Value>: Sendable {
    @usableFromInline let onNext: @MainActor (Value) -> Void
    /// Set by `Disposable.dispose()` on whatever thread: from then on the observer is skipped, even before the
    /// loop has removed it from its list.
    @usableFromInline let isDisposed = ManagedAtomic<Bool>(false)

    @usableFromInline
    init(_ onNext: @escaping @MainActor (Value) -> Void) {
        self.onNext = onNext
    }
}
