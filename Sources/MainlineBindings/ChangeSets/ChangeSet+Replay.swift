extension ChangeSet {
    /// Replays the history on a host's copy of a data source's rows, one array of rows per section.
    ///
    /// Rows that were moved keep their value; rows and sections that were inserted or changed are fetched with
    /// `row` and `section` after the whole history was replayed, so both closures must read the data source's
    /// current state — the state this change set leads to. Changes inside a section that is fetched whole anyway
    /// are skipped.
    ///
    /// ```swift
    /// var rows = source.snapshot()
    /// let observation = source.observeChanges { changes in
    ///     try? changes.replay(on: &rows, section: source.rows(in:), row: source.item(at:))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - sections: The host's rows; replaced only when the whole history applied.
    ///   - section: Fetches every row of a section, by its index after the history.
    ///   - row: Fetches one row, by its path after the history.
    /// - Throws: ``ChangeSetReplayError`` when a change names a section or row the copy does not have (the copy
    ///   was out of step with the data source); `sections` is then left as it was.
    /// - Complexity: O(n × m): n changes over sections of up to m rows.
    public func replay<Row>(
        on sections: inout [[Row]],
        section: (Int) -> [Row],
        row: (RowPath) -> Row
    ) throws(ChangeSetReplayError) {
        // A section is either rows known so far (nil: fetch that row at the end) or nil (fetch it whole).
        var mirror: [[Row?]?] = sections.map { $0.map(Optional.some) }
        func check(_ valid: Bool, _ change: SingleChange) throws(ChangeSetReplayError) {
            if !valid { throw ChangeSetReplayError(change: change, sectionCount: mirror.count) }
        }
        for change in history {
            switch change {
            case .sectionInserted(let index):
                try check(index >= 0 && index <= mirror.count, change)
                mirror.insert(nil, at: index)
            case .sectionDeleted(let index):
                try check(mirror.indices.contains(index), change)
                mirror.remove(at: index)
            case .sectionChanged(let index):
                try check(mirror.indices.contains(index), change)
                mirror[index] = nil
            case .rowInserted(let path):
                try check(mirror.indices.contains(path.section), change)
                guard var rows = mirror[path.section] else { continue }
                try check(path.row >= 0 && path.row <= rows.count, change)
                rows.insert(nil, at: path.row)
                mirror[path.section] = rows
            case .rowDeleted(let path):
                try check(mirror.indices.contains(path.section), change)
                guard var rows = mirror[path.section] else { continue }
                try check(rows.indices.contains(path.row), change)
                rows.remove(at: path.row)
                mirror[path.section] = rows
            case .rowChanged(let path):
                try check(mirror.indices.contains(path.section), change)
                guard var rows = mirror[path.section] else { continue }
                try check(rows.indices.contains(path.row), change)
                rows[path.row] = nil
                mirror[path.section] = rows
            case .rowMoved(let from, let to):
                try check(mirror.indices.contains(from.section) && mirror.indices.contains(to.section), change)
                var moved: Row?
                if var rows = mirror[from.section] {
                    try check(rows.indices.contains(from.row), change)
                    moved = rows.remove(at: from.row)
                    mirror[from.section] = rows
                }
                if var rows = mirror[to.section] {
                    try check(to.row >= 0 && to.row <= rows.count, change)
                    rows.insert(moved, at: to.row)
                    mirror[to.section] = rows
                }
            }
        }
        sections = mirror.enumerated().map { index, rows in
            guard let rows else { return section(index) }
            return rows.enumerated().map { $1 ?? row(RowPath(section: index, row: $0)) }
        }
    }
}

/// A change set could not be replayed on a host's copy of the rows: a change named a section or row the copy does
/// not have, so the copy was out of step with the data source.
///
/// `ChangeSetReplayError` is a value type; all operations on it are thread-safe.
public struct ChangeSetReplayError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The change that did not fit.
    public var change: SingleChange
    /// How many sections the copy had when it was reached.
    public var sectionCount: Int

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - change: The change that did not fit.
    ///   - sectionCount: How many sections the copy had when it was reached.
    public init(change: SingleChange, sectionCount: Int) {
        self.change = change
        self.sectionCount = sectionCount
    }

    /// What did not fit, in words.
    public var description: String {
        "cannot replay \"\(change)\" on a copy with \(sectionCount) sections: the copy is out of step with its source"
    }
}
