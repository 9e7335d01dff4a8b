import Atomics
import MainlineLoop

/// The one observer list under every observable thing in Mainline — `SimpleEvent`, `LazySimpleEvent`,
/// `ObserverHub`, the observables and subjects, data sources and array models — so that they all keep one set of
/// rules.
///
/// Must be used on the main actor, except ``end(_:loop:)``, which any thread may call.
///
/// Rules:
/// - **Order.** Observers are notified in the order they were added.
/// - **A round visits the observers installed when it began.** One added during a round is first notified by the
///   next round. One ended during a round is not notified from then on — neither later in that round nor in any
///   other.
/// - **Ending, and its thread.** Ended on the main actor (``remove(_:)``: a token's `remove()` or deinit, a
///   `Disposable` disposed inside the loop's phases), an entry leaves the list at once. Ended from another thread
///   (``end(_:loop:)``: a `Disposable` disposed elsewhere), its flag is set at once, so no round calls it once that
///   call has returned, and it leaves the list in a job posted to the loop. Either way the list lets go of it on the
///   loop.
/// - **Nested rounds** — a round requested while one is running on the same list, because an observer changed what
///   it observes — follow the owner's seed (``_NestedRounds``): `.reported(owner:)` (MMMObservables' `SimpleEvent`
///   and `ObserverHub`) reports `nestedNotification` to `Diagnostics` and then runs the inner round depth-first, as
///   upstream; `.deferred` (Kaluga's observables, whose collectors never nest; data sources; array models) is not
///   misuse: the running round finishes, then **one more round** delivers what changed meanwhile, so no observer is
///   re-entered and the observers after the one that made the change do not receive it twice.
///
/// Block observers are wrapped in ``_Block`` (or a concrete struct of their owner's), never stored as a bare generic
/// function, which the compiler keeps at its most general abstraction and may read back through a reabstraction
/// thunk.
///
/// - Complexity: adding and ending are O(1): an entry knows its slot, and ending leaves a tombstone there.
///   Tombstones are compacted, when no round is running, once they are more than half of the slots, so ending N
///   observers costs O(N) in all. A round is O(slots).
@MainActor
@usableFromInline
package final class _ObserverList<Observer> {
    /// One observer and the slot it sits in; its flag says it was ended (from any thread).
    @usableFromInline package typealias Entry = _ObserverEntry<Observer>

    // Unchecked exclusivity: main-actor state; no access spans a call out (rounds index `entries` afresh for every
    // slot). The dynamic checks were a fifth of a one-observer notification's cost (Benchmarks/HISTORY.md, fan-out).
    /// The slots, in the order observers were added; `nil` is a tombstone. Protected by the main actor.
    @exclusivity(unchecked) @usableFromInline var entries: ContiguousArray<Entry?> = []
    /// How many slots of `entries` are tombstones. Protected by the main actor.
    @exclusivity(unchecked) @usableFromInline var tombstones = 0
    /// How many rounds are running (more than one only for a `.reported` nesting). Protected by the main actor.
    @exclusivity(unchecked) @usableFromInline var depth = 0
    /// Set when a `.deferred` list was asked for a round while one was running. Protected by the main actor.
    @exclusivity(unchecked) @usableFromInline var anotherRoundRequested = false
    /// How nested rounds are handled.
    @usableFromInline let nesting: _NestedRounds
    /// Slots visited outside rounds (compaction, counting): what a test reads to prove that ending N observers costs
    /// O(N), without timing anything. Protected by the main actor.
    package private(set) var slotVisits = 0

    /// Creates an empty list. Callable from any thread.
    ///
    /// - Parameter nesting: What a round requested during a round does.
    @usableFromInline
    package nonisolated init(nesting: _NestedRounds) {
        self.nesting = nesting
    }

    // MARK: Adding and ending

    /// Adds `observer` at the end; returns its entry, which ``remove(_:)`` or ``end(_:loop:)`` take.
    @inlinable
    package func add(_ observer: Observer) -> Entry {
        let entry = Entry(observer, index: entries.count)
        entries.append(entry)
        return entry
    }

    /// Ends `entry` now: a running round skips it from here, and the list lets go of it. Idempotent.
    ///
    /// - Complexity: O(1) amortized.
    @inlinable
    package func remove(_ entry: Entry) {
        entry.markEnded()
        let index = entry.index
        guard index >= 0 else { return }
        entry.index = -1
        entries[index] = nil
        tombstones += 1
        if depth == 0 { compactIfWorthIt() }
    }

    /// Ends `entry` from any thread: no round calls it once this returns; it leaves the list on the loop — now if
    /// the caller is inside one of `loop`'s phases, otherwise in a job posted to `loop`.
    ///
    /// - Parameter loop: The loop this list's owner lives on.
    package nonisolated func end(_ entry: Entry, loop: any Loop) {
        // Relaxed loads in rounds suffice: nothing is published through the flag, and a caller that needs
        // "stopped before X" orders X after this call by other means (it returned before X began).
        entry.markEnded()
        _endOnLoop(loop) { [weak self] in self?.remove(entry) }
    }

    /// How many observers are installed and not ended.
    ///
    /// - Complexity: O(slots).
    package var count: Int {
        slotVisits += entries.count
        return entries.reduce(0) { count, entry in
            guard let entry, !entry.isEnded else { return count }
            return count + 1
        }
    }

    /// Whether no observer is installed (ended ones do not count).
    ///
    /// - Complexity: O(1) when the first slot holds a live observer; at worst O(slots).
    package var isEmpty: Bool {
        if entries.count == tombstones { return true }
        return !entries.contains { entry in entry.map { !$0.isEnded } ?? false }
    }

    // MARK: Rounds

    /// Whether a round is running.
    package var isNotifying: Bool { depth > 0 }

    /// Notifies every observer installed now, in order, with `value`.
    ///
    /// Inside a running round, a `.reported` list reports the nesting and runs this round depth-first; a `.deferred`
    /// list only records the request (`value` is dropped), and the outermost call, once its round has ended, asks
    /// `next` for the value of one more round, passing the value of the round that just ended: `next` reads the
    /// latest state and returns `nil` when there is nothing new to deliver.
    ///
    /// - Parameters:
    ///   - value: The value of this round.
    ///   - next: The value of one more round, asked for on a `.deferred` list only.
    ///   - call: Tells one observer (its entry: `entry.observer`), so that it may also end it.
    @inlinable @inline(__always)
    package func notify<Value>(_ value: Value, next: (Value) -> Value?, _ call: (Entry, Value) -> Void) {
        // The common case — no round running, no round requested during this one — stays small and inline; the rest
        // is out of line.
        if depth > 0 && !nestedRoundMayRun() { return }
        // Wrapping arithmetic: the depth is bounded by the stack, so the overflow checks would only cost.
        depth &+= 1
        round(value, call)
        if anotherRoundRequested && depth == 1 { moreRounds(after: value, next: next, call) }
        depth &-= 1
        if depth == 0 && tombstones > 0 { compactIfWorthIt() }
    }

    /// One round: every entry installed now and not ended, in order.
    @inlinable @inline(__always)
    func round<Value>(_ value: Value, _ call: (Entry, Value) -> Void) {
        let end = entries.count
        var index = 0
        while index < end {
            if let entry = entries[index], !entry.isEnded {
                call(entry, value)
            }
            index &+= 1
        }
    }

    /// The rounds a `.deferred` list was asked for while one ran, one at a time, while `next` has something new.
    @inlinable @inline(never)
    func moreRounds<Value>(after value: Value, next: (Value) -> Value?, _ call: (Entry, Value) -> Void) {
        var delivered = value
        while anotherRoundRequested {
            anotherRoundRequested = false
            guard let latest = next(delivered) else { return }
            round(latest, call)
            delivered = latest
        }
    }

    /// Calls `body` with every observer installed now, in order, as one round (for callers with nothing but the
    /// observers to pass, like `ObserverHub.forEach`).
    @inlinable @inline(__always)
    package func forEach(_ body: (Observer) -> Void) {
        notify((), next: { _ in nil }, { entry, _ in body(entry.observer) })
    }

    // MARK: Internals

    /// A round was asked for while one runs: `.deferred` records the request and says no; `.reported` reports the
    /// nesting and says yes (it runs depth-first).
    @usableFromInline
    func nestedRoundMayRun() -> Bool {
        switch nesting {
        case .deferred:
            anotherRoundRequested = true
            return false
        case .reported(let owner):
            Self.reportNested(owner)
            return true
        }
    }

    @usableFromInline
    static func reportNested(_ owner: String) {
        Diagnostics.report(
            .nestedNotification,
            "\(owner): a notification round started while another was running on it (an observer triggered what it observes). Observers later in the outer round will see the inner notification first. Use a LazySimpleEvent, or coalescingNotifications {}, to avoid nesting."
        )
    }

    /// Drops the tombstones once they are more than half of the slots (so each compaction at least halves the list,
    /// and N endings cost O(N) in all). Only outside rounds: rounds rely on slots staying put.
    @usableFromInline
    func compactIfWorthIt() {
        guard depth == 0, tombstones * 2 > entries.count else { return }
        slotVisits += entries.count
        var kept = 0
        for index in entries.indices {
            guard let entry = entries[index] else { continue }
            entry.index = kept
            entries[kept] = entry
            kept += 1
        }
        entries.removeLast(entries.count - kept)
        tombstones = 0
    }
}

/// A block observer of an ``_ObserverList``: a function wrapped in a struct, so that the list stores it at the
/// struct's abstraction and calls it without making a thunk.
///
/// The result is `Void` on purpose: with a generic result too, code generic over the value (as `_ObservableCore<T>`
/// is) would read `body` back through a reabstraction thunk (the `Void` it returns directly against the `@out` result
/// it is stored with). An observer that returns something gets a concrete struct of its own (`ArrayModel`'s
/// listeners).
@usableFromInline
package struct _Block<Value> {
    /// The observer's block.
    @usableFromInline package let body: @MainActor (Value) -> Void

    @inlinable
    package init(_ body: @escaping @MainActor (Value) -> Void) {
        self.body = body
    }
}

/// One observer of an ``_ObserverList``, and the slot it sits in.
///
/// `observer` is immutable and `index` protected by the main actor; `ended` is thread-safe.
///
/// A final class with the observer in a `let`: a round that holds the entry calls the observer without retaining
/// the observer's context (it cannot change under the call). Kept in a `ManagedBuffer` header instead, with the flag
/// inline, the observer had to be copied out (a retain and a release more per call; measured: a subject's observer
/// call went from 12 to 22 ns).
@usableFromInline
package final class _ObserverEntry<Observer>: @unchecked Sendable {
    // @unchecked Sendable: other threads touch `ended` only (atomic); `observer` is immutable and only called on the
    // main actor; `index` is only read and written on the main actor.

    /// The observer: a block, or a box holding an object weakly.
    @usableFromInline package let observer: Observer
    /// Where the entry sits in its list's `entries`; -1 once it left the list.
    @exclusivity(unchecked) @usableFromInline var index: Int
    /// Set when the observation ends, from any thread; a round skips the entry from then on.
    // An `UnsafeAtomic` (destroyed in `deinit`) rather than a `ManagedAtomic`: a round would read a generic
    // `ManagedAtomic`'s storage through an indirect call per observer (Benchmarks/HISTORY.md, "Speed").
    @usableFromInline let ended = UnsafeAtomic<Bool>.create(false)

    @usableFromInline
    init(_ observer: Observer, index: Int) {
        self.observer = observer
        self.index = index
    }

    deinit { ended.destroy() }

    /// Whether the observation ended. Thread-safe; relaxed, as nothing is published through the flag.
    @inlinable @inline(__always)
    package var isEnded: Bool { ended.load(ordering: .relaxed) }

    /// Marks the observation ended. Thread-safe.
    @inlinable
    package func markEnded() { ended.store(true, ordering: .releasing) }
}

/// What an ``_ObserverList`` does with a round requested while one is running: the seeds disagree, so each owner
/// says which seed it follows.
@usableFromInline
package enum _NestedRounds: Sendable {
    /// MMMObservables' `SimpleEvent` and `ObserverHub`: a nested round is misuse, reported to `Diagnostics`
    /// (`nestedNotification`) with `owner` in the message, then run depth-first.
    case reported(owner: String)
    /// Kaluga's observables (collectors see conflated values one at a time), data sources, array models: not misuse;
    /// one more round runs after the current one ends.
    case deferred
}
