import MainlineLoop

/// A collection of disposables (and of other bags) disposed together: on ``dispose()``, and when the bag is
/// released.
///
/// All operations on `DisposeBag` are thread-safe.
///
/// A bag is reusable: after ``dispose()`` it is empty, and what is added next is disposed by the next
/// ``dispose()``. Nested bags are disposed (and emptied) with their parent.
public final class DisposeBag: Sendable {
    private enum Item: Sendable {
        case disposable(Disposable)
        case bag(DisposeBag)
    }

    private let items = _Locked<[Item]>([])

    /// Creates an empty bag.
    public init() {}

    deinit {
        dispose()
    }

    /// Adds `disposable`.
    ///
    /// - Parameter disposable: What to dispose with the bag.
    public func add(_ disposable: Disposable) {
        items.withLock { $0.append(.disposable(disposable)) }
    }

    /// Adds `bag`: disposing this bag disposes it too (and empties it).
    ///
    /// - Parameter bag: The nested bag; adding a bag to itself does nothing.
    public func add(_ bag: DisposeBag) {
        guard bag !== self else { return }
        items.withLock { $0.append(.bag(bag)) }
    }

    /// Disposes everything in the bag, in the order it was added, and empties the bag.
    public func dispose() {
        let taken = items.withLock { items in
            defer { items = [] }
            return items
        }
        for item in taken {
            switch item {
            case .disposable(let disposable): disposable.dispose()
            case .bag(let bag): bag.dispose()
            }
        }
    }

    /// How many disposables and nested bags the bag holds.
    public var count: Int { items.withLock { $0.count } }
}
