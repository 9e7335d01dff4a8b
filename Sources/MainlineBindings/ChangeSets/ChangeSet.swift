/// An ordered history of section and row changes: what a data source tells its host instead of "reload
/// everything".
///
/// `ChangeSet` is a value type; all operations on it are thread-safe. Copies are deep: changing a copy never
/// changes the original (upstream ViewModelKit's class needed an explicit copy).
///
/// The history is **sequential**: each ``SingleChange`` is stated in the positions left by the ones before it,
/// so a host replays it step by step (``replay(on:section:row:)`` does it for a host that mirrors rows in
/// arrays). Inserted and changed rows and sections carry no content: the host fetches them from the data source
/// once the whole set has been replayed.
///
/// ```swift
/// var changes = ChangeSet()
/// changes.insertedRow(at: RowPath(section: 0, row: 2))
/// changes.movedRow(from: RowPath(section: 0, row: 0), to: RowPath(section: 0, row: 4))
/// changes.applyOffset(section: 3, row: 0)          // the child sits after three sections of its siblings
/// changes.indexPath(afterChangesFrom: RowPath(section: 3, row: 1))   // [3, 1]: shifted down, then up
/// ```
public struct ChangeSet: Hashable, Sendable, CustomStringConvertible {
    /// The changes, oldest first.
    public private(set) var history: [SingleChange]

    /// Creates a change set with the given history (empty by default).
    ///
    /// - Parameter history: The changes, oldest first.
    public init(_ history: [SingleChange] = []) {
        self.history = history
    }

    /// Whether nothing was recorded.
    public var isEmpty: Bool { history.isEmpty }

    // MARK: Recording

    /// Records that a section was inserted at `index`.
    ///
    /// - Parameter index: The new section's index.
    public mutating func insertedSection(_ index: Int) {
        history.append(.sectionInserted(index))
    }

    /// Records that the section at `index` was deleted.
    ///
    /// - Parameter index: The deleted section's index.
    public mutating func deletedSection(_ index: Int) {
        history.append(.sectionDeleted(index))
    }

    /// Records that the section at `index` changed as a whole.
    ///
    /// - Parameter index: The changed section's index.
    public mutating func changedSection(_ index: Int) {
        history.append(.sectionChanged(index))
    }

    /// Records that a row was inserted at `path`.
    ///
    /// - Parameter path: The new row's path.
    public mutating func insertedRow(at path: RowPath) {
        history.append(.rowInserted(path))
    }

    /// Records that the row at `path` was deleted.
    ///
    /// - Parameter path: The deleted row's path.
    public mutating func deletedRow(at path: RowPath) {
        history.append(.rowDeleted(path))
    }

    /// Records that the row at `path` changed in place.
    ///
    /// - Parameter path: The changed row's path.
    public mutating func changedRow(at path: RowPath) {
        history.append(.rowChanged(path))
    }

    /// Records that the row at `from` moved to `to`; a move to the same path is recorded as a change of that row,
    /// as upstream does.
    ///
    /// - Parameters:
    ///   - from: Where the row was.
    ///   - to: Where it is now, counted after its removal from `from`.
    public mutating func movedRow(from: RowPath, to: RowPath) {
        history.append(from == to ? .rowChanged(from) : .rowMoved(from: from, to: to))
    }

    /// Appends another history after this one.
    ///
    /// - Parameter other: Changes that happened after this set's.
    public mutating func append(contentsOf other: ChangeSet) {
        history.append(contentsOf: other.history)
    }

    // MARK: Rewriting

    /// Shifts every change: `section` is added to every section index, `row` to every row index (section-only
    /// changes ignore `row`). A parent data source calls it with the sections or rows its earlier children take.
    ///
    /// - Parameters:
    ///   - section: Added to section indexes.
    ///   - row: Added to row indexes.
    /// - Complexity: O(n) in the length of the history.
    public mutating func applyOffset(section: Int, row: Int) {
        guard section != 0 || row != 0 else { return }
        history = history.map { $0.applyingOffset(section: section, row: row) }
    }

    /// Replaces each section inserted and then deleted at once, at the same index, by one change of that section,
    /// as upstream's `cleanUp` does.
    ///
    /// - Complexity: O(n) in the length of the history.
    public mutating func cleanUp() {
        var cleaned: [SingleChange] = []
        cleaned.reserveCapacity(history.count)
        for change in history {
            if case .sectionDeleted(let deleted) = change, case .sectionInserted(let inserted)? = cleaned.last,
                inserted == deleted
            {
                cleaned[cleaned.count - 1] = .sectionChanged(inserted)
            } else {
                cleaned.append(change)
            }
        }
        history = cleaned
    }

    // MARK: Following a row

    /// Where the row that was at `path` before this history is after it: `nil` if it, or its section, was deleted.
    ///
    /// Inserts before the row push it down, deletes before it pull it up, a move of the row takes it along, and
    /// changes leave it where it is.
    ///
    /// - Parameter path: A path before the history.
    /// - Returns: The same row's path after the history, or `nil`.
    /// - Complexity: O(n) in the length of the history.
    public func indexPath(afterChangesFrom path: RowPath) -> RowPath? {
        var current = path
        for change in history {
            guard let next = change.shifted(current) else { return nil }
            current = next
        }
        return current
    }

    /// The history, one change a line, as tests and logs show it.
    public var description: String {
        "ChangeSet(" + history.map(\.description).joined(separator: ", ") + ")"
    }
}
