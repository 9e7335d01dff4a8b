import MainlineEvents
import MainlineLoop

/// The state and observers behind every observable and subject: the current value (or nothing), conflation of
/// equal values, and rounds that notify observers in registration order.
///
/// Must be used on the main actor, except ``loop`` and ``equality``.
///
/// The observers are MainlineEvents' ``_ObserverList``, with its rules for additions and endings during a round and
/// for disposal and its thread, and with `.deferred` nesting, as Kaluga's collectors never nest: a value set from
/// inside an observer is delivered by one more round once the current one has ended, so no observer is re-entered
/// and the observers after the one that set it do not receive it twice.
///
/// The paths every value takes (apply, notify, post) are inlinable, so that they are specialised for the caller's
/// `T`: unspecialised, a one-observer update cost ~0.5 µs in generic-metadata lookups (Benchmarks/HISTORY.md).
@MainActor
@usableFromInline
final class _ObservableCore<T> {
    @usableFromInline nonisolated let loop: any Loop
    /// `==` when `T` is `Equatable`, resolved once at creation; `nil` means every value notifies.
    @usableFromInline let equality: ((T, T) -> Bool)?
    // Unchecked exclusivity: main-actor state; no access spans a call out.
    @exclusivity(unchecked) @usableFromInline var state: ObservableOptional<T>
    /// The observers' `onNext` blocks.
    @usableFromInline let observers = _ObserverList<_Block<ObservableOptional<T>>>(nesting: .deferred)
    /// Runs with each value that changed the state, before the observers are told: how a subject backed by a
    /// setter (a key path, a closure) writes through.
    @usableFromInline var didApply: (@MainActor (T) -> Void)?
    /// Work that feeds this observable (an `AsyncSequence` adapter's task), cancelled when the observable goes.
    nonisolated let feeders = _Locked<[Task<Void, Never>]>([])

    @usableFromInline
    init(loop: any Loop, state: ObservableOptional<T>) {
        self.loop = loop
        self.state = state
        self.equality = _Equality.of(T.self)
    }

    deinit {
        for feeder in feeders.withLock({ $0 }) { feeder.cancel() }
    }

    /// Stores `new` and notifies the observers, unless it equals the current value (conflation).
    /// Returns whether it changed anything.
    @inlinable @discardableResult
    func apply(_ new: ObservableOptional<T>) -> Bool {
        if isSame(state, new) { return false }
        state = new
        if let didApply, case .value(let value) = new { didApply(value) }
        notify()
        return true
    }

    /// Registers `onNext`, calls it with the current state at once, and returns the disposable that ends it.
    @usableFromInline
    func observe(_ onNext: @escaping @MainActor (ObservableOptional<T>) -> Void) -> Disposable {
        let entry = observers.add(_Block(onNext))
        let loop = loop
        let disposable = Disposable { [weak observers] in
            if let observers {
                observers.end(entry, loop: loop)
            } else {
                entry.markEnded()
            }
        }
        onNext(state)
        return disposable
    }

    /// How many observers are registered and not disposed.
    @usableFromInline var observerCount: Int { observers.count }

    /// Tells every observer the current state; from inside a round, asks for one more round after it instead.
    @inlinable
    func notify() {
        // One more round (asked for by a value set during a round) runs only if the state changed since the round
        // that just ended, so observers see distinct values, one at a time.
        observers.notify(
            state,
            next: { delivered in isSame(delivered, state) ? nil : state },
            { entry, value in entry.observer.body(value) }
        )
    }

    @inlinable
    func isSame(_ lhs: ObservableOptional<T>, _ rhs: ObservableOptional<T>) -> Bool {
        switch (lhs, rhs) {
        case (.nothing, .nothing): return true
        case (.value(let a), .value(let b)): return equality?(a, b) ?? false
        default: return false
        }
    }
}

extension _ObservableCore where T: Sendable {
    /// Starts a task that posts every element of `sequence` (mapped by `transform`) into this observable, until the
    /// sequence ends or fails, or the observable is released.
    nonisolated func feed<S: AsyncSequence & Sendable>(
        from sequence: S,
        _ transform: @escaping @Sendable (S.Element) -> T
    ) {
        let task = Task { [weak self] in
            do {
                for try await element in sequence {
                    guard let self, self.post(.value(transform(element))) else { return }
                }
            } catch {
                // A failing sequence ends the feed; the observable keeps its last value.
            }
        }
        feeders.withLock { $0.append(task) }
    }

    /// Applies `new` on the loop, soon. Thread-safe; never blocks. Returns `false` if the loop has stopped.
    @inlinable
    nonisolated func post(_ new: ObservableOptional<T>) -> Bool {
        // Strong: a queued value keeps the subject until it is applied (a weak load per value was ~a fifth of the
        // loop's time in the post benchmark), and a value posted to a subject must not be lost anyway.
        loop.post { [self] in apply(new) }
    }

    /// Applies `new` on the loop and returns once it has been applied. Returns `false` if the loop has stopped
    /// (nothing was applied).
    @usableFromInline
    nonisolated func set(_ new: ObservableOptional<T>) async -> Bool {
        await withCheckedContinuation { (applied: CheckedContinuation<Bool, Never>) in
            let accepted = loop.post { [weak self] in
                self?.apply(new)
                applied.resume(returning: true)
            }
            if !accepted { applied.resume(returning: false) }
        }
    }
}
