/// Cell view models by row path, kept in step with the rows they stand for as change sets arrive.
///
/// `ViewModelCache` is a value type and **not** thread-safe to share mutably; ``MutableArrayDataSource`` keeps one
/// on the main actor.
///
/// ``apply(_:)`` moves each cached view model along with its row:
///
/// | change | cached view models |
/// |---|---|
/// | section inserted at s | sections from s move down one |
/// | section deleted at s | section s is dropped; later sections move up one |
/// | section changed at s | section s is dropped (its rows are rebuilt) |
/// | row inserted at p | rows from p in its section move down one |
/// | row deleted at p | p is dropped; later rows in its section move up one |
/// | row changed at p | p is dropped (it is rebuilt) |
/// | row moved from a to b | a's view model goes to b; the rows between shift |
public struct ViewModelCache<ViewModel> {
    /// The cached view models; protected by value semantics.
    private var storage: [RowPath: ViewModel] = [:]

    /// Creates an empty cache.
    public init() {}

    /// The view model cached for `path`, if any; setting `nil` removes it.
    ///
    /// - Parameter path: A row path.
    public subscript(path: RowPath) -> ViewModel? {
        get { storage[path] }
        set { storage[path] = newValue }
    }

    /// How many view models are cached.
    public var count: Int { storage.count }

    /// The paths that have a cached view model, in order.
    public var paths: [RowPath] { storage.keys.sorted() }

    /// Moves every cached view model along with its row through `changes`, and drops those whose row was deleted
    /// or changed.
    ///
    /// - Parameter changes: Changes of the rows, in order.
    /// - Complexity: O(n × m): n changes over m cached view models.
    public mutating func apply(_ changes: ChangeSet) {
        for change in changes.history {
            var next: [RowPath: ViewModel] = [:]
            next.reserveCapacity(storage.count)
            for (path, viewModel) in storage {
                switch change {
                case .rowChanged(let changed) where changed == path:
                    continue
                case .sectionChanged(let changed) where changed == path.section:
                    continue
                default:
                    if let shifted = change.shifted(path) { next[shifted] = viewModel }
                }
            }
            storage = next
        }
    }

    /// Drops every cached view model.
    public mutating func removeAll() {
        storage.removeAll()
    }
}

extension ViewModelCache: Sendable where ViewModel: Sendable {}
