import Atomics

/// The weak registry of what an inspector can show: the process's loops, and — while an inspector serves — the objects
/// of the categories the package's upper layers name and register into, each with a describer that the inspector's
/// thread calls.
///
/// Not API: public to the package's own layers only. All operations on `_InspectionRegistry` are thread-safe.
///
/// Guarantees:
/// - **Nothing when no inspector was started.** Loops always register (one entry per loop); every other category
///   registers only while ``isActive``, so a mailbox, view model or coordinator made in a process that never started
///   an inspector pays one relaxed atomic load at its init (a caller checks ``isActive`` before building its describer,
///   which would allocate) and nothing after.
/// - **Weak.** The registry never keeps an object alive: it holds `object` weakly and the entry goes with it. Register
///   a `Sendable` object the inspector's thread may release (a mailbox, or a mirror that a main-actor object owns),
///   never a main-actor object itself: the inspector's thread must never hold the last reference to it.
/// - **Bounded.** Dead entries are pruned when a category's list has doubled since its last prune, so a process that
///   makes and drops objects forever keeps at most about twice its live ones.
/// - **Describers run on the inspector's thread**, outside the registry's lock and possibly while the loop is stalled:
///   a describer reads only thread-safe state (a lock of its own, atomics, a mirror) and returns `nil` once its object
///   is gone.
///
/// ```swift
/// if _InspectionRegistry.shared.isActive {
///     _InspectionRegistry.shared.register(self, in: .mailboxes) { [weak self] _ in self?.summary }
/// }
/// ```
package final class _InspectionRegistry: @unchecked Sendable {
    // @unchecked Sendable: `lists` is read and written only while `lock` is held; `active` and `ids` are atomics.

    /// The registry every layer registers with, and every `LoopInspector` serves.
    package static let shared = _InspectionRegistry()

    /// What an entry is; each category is one list of the inspector's snapshot, named by the layer that registers
    /// into it (an extension of `Category` in that layer). The registry itself knows only `loops`.
    ///
    /// `Category` is a value type; all operations on it are thread-safe.
    package struct Category: Hashable, Sendable, CustomStringConvertible {
        /// The category's name: its list's key in the inspector's snapshot.
        package let rawValue: String

        /// The category called `rawValue`.
        ///
        /// - Parameter rawValue: Its name, the key of its list in the inspector's snapshot.
        package init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// The category's name.
        package var description: String { rawValue }

        /// `MainLoop`, `EventLoop`, `TestLoop`: registered always.
        package static let loops = Category("loops")
    }

    /// How much a describer is asked for.
    ///
    /// `Detail` is a value type; all operations on it are thread-safe.
    package enum Detail: Sendable {
        /// The object's state now, for the inspector's snapshot.
        case summary
        /// A loop's flight recorder, for the inspector's `recorder` answer (other categories answer as for
        /// ``summary``).
        case recorder
    }

    /// One registered object. Its describer answers with a type of the inspector's schema (`MailboxSummary`,
    /// `LoopSummary`, …), which ``describe(_:as:detail:)`` asks for by type.
    private struct Entry {
        weak var object: AnyObject?
        let describe: @Sendable (Detail) -> (any Sendable)?
    }

    /// One category's entries, in registration order, and its size after the last prune.
    private struct List {
        var entries: [Entry] = []
        var sizeAfterPrune = 0
    }

    private let active = ManagedAtomic(false)
    private let ids = ManagedAtomic(0)
    private let lock = _Lock()
    /// Protected by `lock`.
    private var lists: [Category: List] = [:]

    /// A list is first pruned once it holds this many entries.
    private static let firstPruneSize = 16

    /// An empty, inactive registry. The process has one, ``shared``; tests make their own.
    package init() {}

    /// Whether an inspector serves (one relaxed atomic load): objects other than loops register only then.
    ///
    /// Thread-safe. Once `true`, it stays `true` for the life of the registry (see ``activate()``).
    package var isActive: Bool { active.load(ordering: .relaxed) }

    /// Makes the registry active: objects made from now on register. Thread-safe; idempotent.
    ///
    /// One-way: a stopped inspector leaves the registry active, so that an inspector started later sees the objects
    /// made meanwhile (each costs one entry, pruned when it goes).
    package func activate() {
        active.store(true, ordering: .relaxed)
    }

    /// A new identifier, unique in this registry, for a describer to report as its object's `id`. Thread-safe.
    ///
    /// - Returns: 1, 2, 3, … in the order asked.
    package func makeID() -> Int {
        ids.wrappingIncrementThenLoad(ordering: .relaxed)
    }

    /// Registers `object`; `describe` is called on the inspector's thread (thread-safe!), returns nil when the object
    /// is gone.
    ///
    /// Loops always register; other categories only while ``isActive`` (otherwise a no-op costing one atomic load).
    /// Dead entries are pruned when the list has doubled since the last prune, so nothing is kept forever.
    ///
    /// Thread-safe.
    ///
    /// - Parameters:
    ///   - object: Held weakly; the entry goes when it does. A `Sendable` object (see the type's guarantees).
    ///   - category: The list it belongs to.
    ///   - describe: What the inspector shows for it, built from thread-safe state only; `nil` once it is gone.
    /// - Complexity: Amortized O(1).
    package func register<Description: Sendable>(
        _ object: AnyObject,
        in category: Category,
        describe: @escaping @Sendable (Detail) -> Description?
    ) {
        guard category == .loops || isActive else { return }
        // Checking an entry loads its weak reference, which retains the object for a moment: if its owner let go
        // meanwhile, that release is the last one, and it must happen after the lock is released (a deinit may take
        // locks of its own). So the pruning keeps what it loaded until then.
        var checked: [AnyObject] = []
        lock.withLock {
            var list = lists.removeValue(forKey: category) ?? List()
            list.entries.append(Entry(object: object, describe: { describe($0) }))
            if list.entries.count >= max(Self.firstPruneSize, 2 * list.sizeAfterPrune) {
                checked.reserveCapacity(list.entries.count)
                list.entries.removeAll { entry in
                    guard let live = entry.object else { return true }
                    checked.append(live)
                    return false
                }
                list.sizeAfterPrune = list.entries.count
            }
            lists[category] = list
        }
        withExtendedLifetime(checked) {}
    }

    /// The live entries' descriptions, in registration order.
    ///
    /// Thread-safe; the inspector calls it on its own thread. The describers run outside the registry's lock, so a
    /// describer that takes its object's lock cannot deadlock with a registration made under that lock.
    ///
    /// - Parameters:
    ///   - category: The list.
    ///   - type: The schema's type its describers answer with for `detail`; an answer of another type is left out.
    ///   - detail: How much to ask each describer for.
    /// - Returns: One value per live entry whose describer answered.
    package func describe<Description>(
        _ category: Category,
        as type: Description.Type,
        detail: Detail = .summary
    ) -> [Description] {
        let describers = lock.withLock { lists[category]?.entries.map(\.describe) ?? [] }
        return describers.compactMap { $0(detail) as? Description }
    }

    /// How many entries a category holds now, dead ones not yet pruned included. For tests of the pruning bound.
    ///
    /// Thread-safe.
    ///
    /// - Parameter category: The list.
    /// - Returns: The count.
    package func entryCount(_ category: Category) -> Int {
        lock.withLock { lists[category]?.entries.count ?? 0 }
    }
}
