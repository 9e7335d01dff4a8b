import MainlineEvents
import MainlineLoop

/// The values of an observable, as an `AsyncSequence` that conflates: `values` of ``InitializedObservable`` and
/// ``UninitializedObservable`` (and so of every subject), and `DataCache.values(skipInitial:)`.
///
/// Made on the main actor by those members. All operations on `ObservedValues` are thread-safe: it may be iterated
/// from any task. Iterated on the main actor (the loop), `for await` runs on it throughout (`next(isolation:)`,
/// SE-0421) and never hops to the global executor and back.
///
/// ```swift
/// let progress = subjectOf(0)
/// Task { @MainActor in
///     for await percent in progress.values {   // the current value first
///         bar.show(percent)                     // a slow consumer sees the newest, skipping what it missed
///     }
/// }
/// ```
///
/// - **An observer.** It is one observer of the observable, added when the sequence is made (the member is read), so
///   it sees what an observer added then sees: the current value first (unless skipped, as
///   `DataCache.values(skipInitial: true)` does), then each change.
/// - **Conflating: at most one element buffered, the newest.** A value that arrives while the consumer is busy is kept
///   as one pending element; a later one before the consumer asks again replaces it. The values are state, so a slow
///   consumer skips intermediate values, never the latest, and costs O(1) memory.
/// - **Finishes** (returns `nil`) when its owner ends it — `DataCache`'s sequences when the cache is released — after
///   a pending element: nothing is lost. An observable's own `values` never finish by themselves: cancel the task.
/// - **Cancellation** of the iterating task finishes it at once (`nil`, dropping a pending element) and removes its
///   observer; so does releasing the sequence and its iterators.
/// - **Two iterators** of one sequence share its observer: each element goes to one of them (the one that waited
///   longest), and cancelling either finishes both. For two consumers that each see every value, read `values` twice.
///
/// In place of the `AsyncStream` these members returned before: `for await` over them is unchanged; code that names
/// the type writes `ObservedValues<T>` or `some AsyncSequence<T, Never>`.
public struct ObservedValues<Element: Sendable>: AsyncSequence, Sendable {
    /// The sequence never throws.
    public typealias Failure = Never

    let wakeups: _ObserverWakeups<Element>

    /// Observes through `observe` from now on. Main actor.
    ///
    /// - Parameters:
    ///   - skipInitial: `true` to leave out the first value, the one `observe` delivers at once (the current value).
    ///   - owner: What ends the sequence when the source's owner goes (`_WakeupsOwner.endAll()`); `nil` when it ends
    ///     only with its consumers.
    ///   - observe: Registers the observer, returning what ends it.
    @MainActor
    package init(
        skipInitial: Bool = false,
        owner: _WakeupsOwner? = nil,
        observe: (@escaping @MainActor (Element) -> Void) -> Disposable
    ) {
        wakeups = _ObserverWakeups(skipInitial: skipInitial, owner: owner) { onNext in
            let observation = observe(onNext)
            return { observation.dispose() }
        }
    }

    /// Returns an iterator over the values. Thread-safe; iterators of one sequence share its observer.
    public func makeAsyncIterator() -> Iterator {
        Iterator(wakeups: wakeups)
    }

    /// Iterates ``ObservedValues``. Use it from one task at a time.
    public struct Iterator: AsyncIteratorProtocol {
        /// The iterator never throws.
        public typealias Failure = Never

        let wakeups: _ObserverWakeups<Element>

        /// Waits for the next value on the caller's isolation; `nil` once the sequence finished.
        ///
        /// Callable from any isolation; on the main actor it stays there.
        ///
        /// - Parameter actor: The caller's isolation, passed by `for await`.
        /// - Returns: The newest value not yet handed out (one that arrived while nobody waited is returned at once),
        ///   or `nil` when the owner ended the sequence or the task was cancelled.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await wakeups.next(isolation: actor)
        }

        /// Waits for the next value; see ``next(isolation:)``, which `for await` calls instead. Callable from any
        /// isolation, from which it hops to the global executor.
        ///
        /// - Returns: The next value, or `nil` once the sequence finished.
        public mutating func next() async -> Element? {
            await next(isolation: nil)
        }
    }
}
