/// One step of a ``ChangeSet``'s history: a section or a row inserted, deleted, changed, or a row moved.
///
/// `SingleChange` is a value type; all operations on it are thread-safe.
///
/// Positions are those of the moment the step happened, after every earlier step of the same history
/// (see ``ChangeSet`` for how a host replays them).
public enum SingleChange: Hashable, Sendable, CustomStringConvertible {
    /// A section was inserted at this index; a host fetches its rows.
    case sectionInserted(Int)
    /// The section at this index was deleted with its rows.
    case sectionDeleted(Int)
    /// The section at this index changed as a whole; a host fetches its rows again.
    case sectionChanged(Int)
    /// A row was inserted at this path; a host fetches it.
    case rowInserted(RowPath)
    /// The row at this path was deleted.
    case rowDeleted(RowPath)
    /// The row at this path changed in place; a host fetches it again.
    case rowChanged(RowPath)
    /// The row at `from` was removed and put back at `to` (a path counted after the removal), unchanged.
    case rowMoved(from: RowPath, to: RowPath)

    /// The same change with `section` added to every section index and `row` added to every row index.
    ///
    /// Section-only changes take the section offset and ignore the row offset.
    ///
    /// - Parameters:
    ///   - section: Added to section indexes.
    ///   - row: Added to row indexes.
    /// - Returns: The shifted change.
    public func applyingOffset(section: Int, row: Int) -> SingleChange {
        func shift(_ path: RowPath) -> RowPath { RowPath(section: path.section + section, row: path.row + row) }
        switch self {
        case .sectionInserted(let index): return .sectionInserted(index + section)
        case .sectionDeleted(let index): return .sectionDeleted(index + section)
        case .sectionChanged(let index): return .sectionChanged(index + section)
        case .rowInserted(let path): return .rowInserted(shift(path))
        case .rowDeleted(let path): return .rowDeleted(shift(path))
        case .rowChanged(let path): return .rowChanged(shift(path))
        case .rowMoved(let from, let to): return .rowMoved(from: shift(from), to: shift(to))
        }
    }

    /// Where a row that was at `path` just before this change is just after it; `nil` if the change deleted it.
    ///
    /// Moves follow the moved row; changes leave every path alone.
    func shifted(_ path: RowPath) -> RowPath? {
        var path = path
        switch self {
        case .sectionInserted(let index):
            if path.section >= index { path.section += 1 }
        case .sectionDeleted(let index):
            if path.section == index { return nil }
            if path.section > index { path.section -= 1 }
        case .sectionChanged, .rowChanged:
            break
        case .rowInserted(let inserted):
            if path.section == inserted.section && path.row >= inserted.row { path.row += 1 }
        case .rowDeleted(let deleted):
            if path == deleted { return nil }
            if path.section == deleted.section && path.row > deleted.row { path.row -= 1 }
        case .rowMoved(let from, let to):
            if path == from { return to }
            if path.section == from.section && path.row > from.row { path.row -= 1 }
            if path.section == to.section && path.row >= to.row { path.row += 1 }
        }
        return path
    }

    /// `section 3 inserted`, `row [0, 2] moved to [0, 5]`, … as tests and logs show it.
    public var description: String {
        switch self {
        case .sectionInserted(let index): "section \(index) inserted"
        case .sectionDeleted(let index): "section \(index) deleted"
        case .sectionChanged(let index): "section \(index) changed"
        case .rowInserted(let path): "row \(path) inserted"
        case .rowDeleted(let path): "row \(path) deleted"
        case .rowChanged(let path): "row \(path) changed"
        case .rowMoved(let from, let to): "row \(from) moved to \(to)"
        }
    }
}
