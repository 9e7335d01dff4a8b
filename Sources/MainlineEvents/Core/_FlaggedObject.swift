import Atomics

/// An object that carries a `Header` and one atomic flag stored **inline**, in the object's own allocation.
///
/// The flag's methods are thread-safe; the header has whatever rule its owner documents (its user confines it to
/// the main actor).
///
/// `ManagedAtomic` is an object of its own, so a flag kept in one costs a second pointer to follow on every read
/// (+1.5 ns per pending `LazySimpleEvent` trigger, Benchmarks/HISTORY.md); this keeps the flag beside the header, as
/// an `Atomic` stored property would, with swift-atomics (the package does not use `Synchronization`).
/// It backs the lazy events' trigger (the flag: "pending"). An observer list's entries keep their flag in a
/// `ManagedAtomic` instead: their observer must sit in a `let` of a plain class (see ``_ObserverEntry``).
final class _FlaggedObject<Header>: ManagedBuffer<Header, Bool.AtomicRepresentation> {
    // Not Sendable (`ManagedBuffer` makes that unavailable): the few places that hand one to another thread say why
    // it is safe there — the flag is only ever accessed atomically, and the header only on the main actor.

    /// Creates the object with `header` and the flag set to `flag`.
    static func make(_ header: Header, flag: Bool = false) -> _FlaggedObject<Header> {
        let object = unsafeDowncast(create(minimumCapacity: 1) { _ in header }, to: _FlaggedObject<Header>.self)
        object.withUnsafeMutablePointerToElements { $0.initialize(to: Bool.AtomicRepresentation(flag)) }
        return object
    }

    deinit {
        _ = withUnsafeMutablePointerToElements { $0.deinitialize(count: 1) }
    }

    /// The header, reached through a pointer. Use this, not `header`: `ManagedBuffer.header` is a stored class
    /// property, so every access to it pays a dynamic exclusivity check (`swift_beginAccess`; measured: it doubled a
    /// subject's cost per observer call). Safe because every owner confines the header to the main actor and no
    /// access to it spans a call out. Valid while the object lives (its header never moves).
    var unsafeHeader: UnsafeMutablePointer<Header> {
        @inline(__always) get { withUnsafeMutablePointerToHeader { $0 } }
    }

    // The orderings are fixed per method: swift-atomics wants them as literals at the call site.

    /// Reads the flag, relaxed: enough where nothing is published through it.
    @inline(__always)
    func loadFlagRelaxed() -> Bool {
        withUnsafeMutablePointerToElements { UnsafeAtomic<Bool>(at: $0).load(ordering: .relaxed) }
    }

    /// Writes the flag with release ordering.
    @inline(__always)
    func storeFlagReleasing(_ value: Bool) {
        withUnsafeMutablePointerToElements { UnsafeAtomic<Bool>(at: $0).store(value, ordering: .releasing) }
    }

    /// Writes the flag, sequentially consistent.
    func storeFlagSequentiallyConsistent(_ value: Bool) {
        withUnsafeMutablePointerToElements {
            UnsafeAtomic<Bool>(at: $0).store(value, ordering: .sequentiallyConsistent)
        }
    }

    /// Sets the flag to `desired` if it is `expected` (acquiring and releasing); returns whether it did.
    func exchangeFlag(expected: Bool, desired: Bool) -> Bool {
        withUnsafeMutablePointerToElements {
            UnsafeAtomic<Bool>(at: $0).compareExchange(
                expected: expected,
                desired: desired,
                ordering: .acquiringAndReleasing
            ).exchanged
        }
    }
}
