import MainlineEvents
import MainlineLoop
import MainlineObservables

/// A tree node that serves rows in sections to a host — a terminal table, a client session — and tells it what
/// changed, as one ``ChangeSet`` per loop iteration, instead of "reload everything".
///
/// Must be used on the main actor, except the `Disposable` that ``observeChanges(_:)`` returns, which any thread
/// may dispose.
///
/// The concrete sources are ``ArrayDataSource`` (static rows), ``MutableArrayDataSource`` (rows of an
/// ``ArrayModel``, as cell view models), ``GroupedDataSource`` (an array model grouped into sections), and the
/// parents ``MultiSectionDataSource``, ``MultiRowDataSource`` and ``EditDataSource``, which concatenate children.
/// A subclass of your own overrides ``numberOfSections``, ``numberOfRows(in:)`` and ``item(at:)`` and calls
/// ``record(_:)`` after each change.
///
/// ```swift
/// var rows = root.snapshot()                      // the host's copy
/// let observation = root.observeChanges { changes in
///     root.replay(changes, on: &rows)             // once per loop iteration, in settle
///     render(rows)
/// }
/// ```
///
/// - Every change a source records reaches its parent at once, shifted by the sections or rows of the siblings
///   before it (their sizes at that moment), so the root's history is exact in order.
/// - Observers are called in the loop's settle phase, once per iteration however many changes were recorded,
///   with the changes recorded since they started observing — never with changes their snapshot already shows.
/// - A source has at most one parent. Adding it to a second is misuse (`dataSourceHasParent`).
@MainActor
open class DataSource<Item> {
    /// The loop whose settle phase delivers the change sets. Thread-safe.
    public nonisolated let loop: any Loop

    /// The parent this source's changes go to; protected by the main actor.
    weak var parent: DataSource<Item>?
    /// Changes recorded since the last delivery; protected by the main actor.
    private var pending = ChangeSet()
    /// Observers in subscription order, with the observer list's rules for endings during a delivery and for
    /// disposal and its thread; protected by the main actor.
    private let observers = _ObserverList<_ChangeObserver>(nesting: .deferred)
    private lazy var delivery = CoalescingCallback(loop: loop) { [weak self] in self?.deliver() }

    /// Creates a source with no parent and no observers.
    ///
    /// - Parameter loop: The loop that delivers its change sets; the main loop unless a test passes a `TestLoop`.
    public init(loop: any Loop = MainLoop.main) {
        self.loop = loop
    }

    // MARK: Contents (overridden by subclasses)

    /// How many sections the source has now. The default is 0.
    open var numberOfSections: Int { 0 }

    /// How many rows `section` has now. The default is 0.
    ///
    /// - Parameter section: A section index below ``numberOfSections``.
    /// - Returns: The row count; 0 for a section the source does not have.
    open func numberOfRows(in section: Int) -> Int { 0 }

    /// The item at `path`.
    ///
    /// Every subclass overrides it; the default traps.
    ///
    /// - Parameter path: A path inside the source.
    /// - Returns: The item.
    /// - Important: A path outside the source traps, as an out-of-range array index does.
    open func item(at path: RowPath) -> Item {
        preconditionFailure("\(type(of: self)) must override item(at:) to serve \(path)")
    }

    /// The title of `section`, if it has one (a group's name). The default is `nil`.
    ///
    /// - Parameter section: A section index.
    /// - Returns: The title, or `nil`.
    open func title(forSection section: Int) -> String? { nil }

    /// The first section whose ``title(forSection:)`` is `title`, for a host's section index; `nil` if none is.
    ///
    /// - Parameter title: The title to look for.
    /// - Returns: The section index, in this source's own numbering.
    open func section(forTitle title: String) -> Int? {
        (0..<numberOfSections).first { self.title(forSection: $0) == title }
    }

    // MARK: Changes

    /// Records changes that just happened to this source: they reach the parent now, and the observers in the
    /// loop's settle phase.
    ///
    /// Subclasses call it after each change, with positions in their own numbering; an empty set does nothing.
    ///
    /// - Parameter changes: What changed, in order.
    public final func record(_ changes: ChangeSet) {
        guard !changes.isEmpty else { return }
        if !observers.isEmpty {
            pending.append(contentsOf: changes)
            delivery.schedule()
        }
        parent?.childDidChange(self, changes)
    }

    /// Calls `observer` once per loop iteration in which this source changed, in the settle phase, with the
    /// changes recorded since the observer was added.
    ///
    /// ```swift
    /// var rows = source.snapshot()
    /// let observation = source.observeChanges { source.replay($0, on: &rows) }
    /// ```
    ///
    /// - Parameter observer: What to call; it runs on the main actor.
    /// - Returns: What ends the observation; dispose it from any thread. Keep it: a released `Disposable` does not
    ///   end anything by itself.
    public final func observeChanges(_ observer: @escaping @MainActor (ChangeSet) -> Void) -> Disposable {
        let entry = observers.add(_ChangeObserver(start: pending.history.count, block: observer))
        let loop = self.loop
        // The list lets go of the observer (and whatever its block holds, often this source) on the loop, at once
        // rather than at a next delivery that may never come.
        return Disposable { [weak observers] in
            if let observers {
                observers.end(entry, loop: loop)
            } else {
                entry.markEnded()
            }
        }
    }

    /// Whether changes are waiting for the next settle phase.
    public var hasPendingChanges: Bool { !pending.isEmpty }

    // MARK: Reading everything

    /// Every row, one array per section: a host's first copy, before it replays change sets on it.
    ///
    /// - Returns: The rows, section by section.
    /// - Complexity: O(n) in the number of rows.
    public final func snapshot() -> [[Item]] {
        (0..<numberOfSections).map(rows(in:))
    }

    /// Every row of `section`.
    ///
    /// - Parameter section: A section index below ``numberOfSections``.
    /// - Returns: The rows, in order.
    public final func rows(in section: Int) -> [Item] {
        (0..<numberOfRows(in: section)).map { item(at: RowPath(section: section, row: $0)) }
    }

    /// Replays `changes`, delivered by this source, on a host's copy made with ``snapshot()``.
    ///
    /// - Parameters:
    ///   - changes: A change set this source delivered.
    ///   - rows: The host's copy; on success it equals ``snapshot()``.
    /// - Returns: `false` if the copy was out of step (it is then replaced by a fresh ``snapshot()``, so nothing is
    ///   left half-applied).
    @discardableResult
    public final func replay(_ changes: ChangeSet, on rows: inout [[Item]]) -> Bool {
        do {
            try changes.replay(on: &rows, section: self.rows(in:), row: item(at:))
            return true
        } catch {
            rows = snapshot()
            return false
        }
    }

    // MARK: Tree (package internals)

    /// Called when `child` recorded `changes`; parents override it to shift them into their own numbering.
    func childDidChange(_ child: DataSource<Item>, _ changes: ChangeSet) {}

    /// Makes this source `parent`'s child; reports misuse and returns `false` if it already has a parent.
    func adopt(by parent: DataSource<Item>) -> Bool {
        if let current = self.parent {
            Diagnostics.report(
                .dataSourceHasParent,
                "\(type(of: self)) was added to \(type(of: parent)) while it is still a child of \(type(of: current)). A data source has one parent: remove it from the first (or make another). It was not added."
            )
            return false
        }
        self.parent = parent
        return true
    }

    private func deliver() {
        let batch = pending
        pending = ChangeSet()
        guard !batch.isEmpty else { return }
        // One round per delivery: changes recorded by an observer go to the next settle phase (`record` schedules
        // it), so there is never one more round to run here.
        observers.notify(
            batch,
            next: { _ in nil },
            { entry, batch in
                let observer = entry.observer
                let changes = observer.start == 0 ? batch : ChangeSet(Array(batch.history.dropFirst(observer.start)))
                observer.start = 0
                if !changes.isEmpty { observer.block(changes) }
            }
        )
    }
}

/// One observer of a data source's change sets.
@MainActor
final class _ChangeObserver {
    /// How many changes of the pending batch it must skip (recorded before it started); protected by the main actor.
    var start: Int
    let block: @MainActor (ChangeSet) -> Void

    init(start: Int, block: @escaping @MainActor (ChangeSet) -> Void) {
        self.start = start
        self.block = block
    }
}
