import MainlineEvents
import MainlineLoop

/// An observable array: the model behind a ``MutableArrayDataSource`` or a ``GroupedDataSource``, which learn
/// exactly what each mutation changed.
///
/// Must be used on the main actor.
///
/// ```swift
/// let tasks = ArrayModel(["write", "review"])
/// let source = MutableArrayDataSource(model: tasks) { task, _ in TaskCellViewModel(task) }
/// tasks.append("ship")            // the source records "row [0, 2] inserted" at once
/// ```
///
/// Each mutation is reported synchronously to the data sources built on the model (in section 0), which forward
/// it up their tree and to their observers in the loop's settle phase. A mutation with an index outside the array
/// is misuse (`arrayModelIndexOutOfRange`): it is reported and changes nothing.
@MainActor
public final class ArrayModel<Element> {
    /// The elements, in order.
    public private(set) var elements: [Element]
    /// Who learns about each mutation, in order; a listener returning `false` is gone. A mutation made by a listener
    /// is delivered in one more round after the current one (`.deferred`), so every listener learns the changes in
    /// the order they were made. Protected by the main actor.
    private let listeners = _ObserverList<_ArrayModelListener>(nesting: .deferred)
    /// Changes not yet delivered to the listeners (more than one only while a round runs). Protected by the main
    /// actor.
    private var undelivered = ChangeSet()

    /// Creates a model holding `elements`.
    ///
    /// - Parameter elements: The first elements.
    public init(_ elements: [Element] = []) {
        self.elements = elements
    }

    /// How many elements the model holds.
    public var count: Int { elements.count }

    /// Appends `element` at the end.
    ///
    /// - Parameter element: The new element.
    public func append(_ element: Element) {
        elements.append(element)
        notify { $0.insertedRow(at: RowPath(section: 0, row: elements.count - 1)) }
    }

    /// Inserts `element` at `index`.
    ///
    /// - Parameters:
    ///   - element: The new element.
    ///   - index: Its position, from 0 to ``count`` inclusive.
    public func insert(_ element: Element, at index: Int) {
        guard check(index, in: 0...elements.count, "insert at") else { return }
        elements.insert(element, at: index)
        notify { $0.insertedRow(at: RowPath(section: 0, row: index)) }
    }

    /// Removes the element at `index` and returns it.
    ///
    /// - Parameter index: A valid index.
    /// - Returns: The removed element, or `nil` for an index outside the array.
    @discardableResult
    public func remove(at index: Int) -> Element? {
        guard check(index, in: 0..<elements.count, "remove at") else { return nil }
        let removed = elements.remove(at: index)
        notify { $0.deletedRow(at: RowPath(section: 0, row: index)) }
        return removed
    }

    /// Moves the element at `from` so that it ends up at `to`; a move to the same index is recorded as a change.
    ///
    /// - Parameters:
    ///   - from: A valid index.
    ///   - to: The element's index after the move; a valid index.
    public func move(from: Int, to: Int) {
        guard check(from, in: 0..<elements.count, "move from"), check(to, in: 0..<elements.count, "move to") else {
            return
        }
        elements.insert(elements.remove(at: from), at: to)
        notify { $0.movedRow(from: RowPath(section: 0, row: from), to: RowPath(section: 0, row: to)) }
    }

    /// Replaces the element at `index` with `element`.
    ///
    /// - Parameters:
    ///   - index: A valid index.
    ///   - element: The new value.
    public func replace(at index: Int, with element: Element) {
        guard check(index, in: 0..<elements.count, "replace at") else { return }
        elements[index] = element
        notify { $0.changedRow(at: RowPath(section: 0, row: index)) }
    }

    /// Replaces every element; recorded as a change of the whole section.
    ///
    /// - Parameter elements: The new elements.
    public func replaceAll(with elements: [Element]) {
        self.elements = elements
        notify { $0.changedSection(0) }
    }

    /// Adds a listener that learns each mutation at once; it stays while it returns `true`.
    func addListener(_ listener: @escaping @MainActor (ChangeSet) -> Bool) {
        _ = listeners.add(_ArrayModelListener(body: listener))
    }

    private func notify(_ describe: (inout ChangeSet) -> Void) {
        describe(&undelivered)
        // Inside a round the list only records a request for one more round, which takes `undelivered` then.
        let changes = listeners.isNotifying ? ChangeSet() : takeUndelivered() ?? ChangeSet()
        listeners.notify(
            changes,
            next: { _ in takeUndelivered() },
            { entry, changes in
                if !entry.observer.body(changes) { listeners.remove(entry) }
            }
        )
    }

    /// The changes made during a round, for one more round; `nil` if none.
    private func takeUndelivered() -> ChangeSet? {
        guard !undelivered.isEmpty else { return nil }
        defer { undelivered = ChangeSet() }
        return undelivered
    }

    private func check<R: RangeExpression<Int>>(_ index: Int, in range: R, _ operation: String) -> Bool {
        guard range.contains(index) else {
            Diagnostics.report(
                .arrayModelIndexOutOfRange,
                "ArrayModel.\(operation) index \(index) is outside the model's \(elements.count) elements. Check the index against count first. Nothing changed."
            )
            return false
        }
        return true
    }
}

/// A listener of an ``ArrayModel``: who learns each mutation; returning `false` means it is gone.
///
/// Must be used on the main actor.
struct _ArrayModelListener {
    let body: @MainActor (ChangeSet) -> Bool
}
