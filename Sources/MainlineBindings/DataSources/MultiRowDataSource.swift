import MainlineLoop

/// A data source with one section whose rows are its children's rows, one child after another.
///
/// Must be used on the main actor.
///
/// ```swift
/// let list = MultiRowDataSource(children: [header, tasks])     // 3 + 5 rows
/// list.append(footer)                  // 2 more: rows 8 and 9 inserted
/// list.remove(at: 0)                   // rows 2, 1, 0 deleted
/// ```
///
/// - Each child contributes the rows of its section 0. A child with more sections is misuse
///   (`multiRowChildHasSections`): its other sections are not shown.
/// - A child's row changes reach this source at once, shifted by the rows of the children before it at that moment.
///   A child's section-level change (a whole reload) becomes a change of section 0.
/// - Adding a child records its rows as inserted; removing it records them deleted, last first.
/// - A child has one parent (`dataSourceHasParent`); an index outside the children is misuse
///   (`dataSourceChildIndexOutOfRange`) and changes nothing.
@MainActor
public final class MultiRowDataSource<Item>: DataSource<Item> {
    /// The children, in order.
    public private(set) var children: [DataSource<Item>] = []

    /// Creates a source over `children`.
    ///
    /// - Parameters:
    ///   - children: The children; each must not have a parent yet.
    ///   - loop: The loop that delivers change sets; the main loop unless a test passes a `TestLoop`.
    public init(children: [DataSource<Item>] = [], loop: any Loop = MainLoop.main) {
        super.init(loop: loop)
        for child in children where adoptChecked(child) { self.children.append(child) }
    }

    /// Appends `child` after the last child.
    ///
    /// - Parameter child: A source without a parent.
    public func append(_ child: DataSource<Item>) {
        insert(child, at: children.count)
    }

    /// Inserts `child` at `index` among the children and records its rows as inserted.
    ///
    /// - Parameters:
    ///   - child: A source without a parent.
    ///   - index: From 0 to the number of children inclusive.
    public func insert(_ child: DataSource<Item>, at index: Int) {
        guard checkIndex(index, in: 0...children.count), adoptChecked(child) else { return }
        let offset = rowOffset(ofChildAt: index)
        children.insert(child, at: index)
        var changes = ChangeSet()
        for row in 0..<rowCount(of: child) { changes.insertedRow(at: RowPath(section: 0, row: offset + row)) }
        record(changes)
    }

    /// Removes the child at `index` and records its rows as deleted, last first.
    ///
    /// - Parameter index: A valid child index.
    /// - Returns: The removed child, or `nil` for an index outside the children.
    @discardableResult
    public func remove(at index: Int) -> DataSource<Item>? {
        guard checkIndex(index, in: 0..<children.count) else { return nil }
        let offset = rowOffset(ofChildAt: index)
        let child = children.remove(at: index)
        child.parent = nil
        var changes = ChangeSet()
        for row in (0..<rowCount(of: child)).reversed() {
            changes.deletedRow(at: RowPath(section: 0, row: offset + row))
        }
        record(changes)
        return child
    }

    /// Removes `child` if it is one of the children.
    ///
    /// - Parameter child: The child.
    /// - Returns: Whether it was a child.
    @discardableResult
    public func remove(_ child: DataSource<Item>) -> Bool {
        guard let index = children.firstIndex(where: { $0 === child }) else { return false }
        return remove(at: index) != nil
    }

    /// One section, always.
    public override var numberOfSections: Int { 1 }

    /// The sum of the children's rows for section 0; 0 otherwise.
    public override func numberOfRows(in section: Int) -> Int {
        section == 0 ? children.reduce(0) { $0 + rowCount(of: $1) } : 0
    }

    /// The item of the child `path` falls in; a path outside the source traps.
    public override func item(at path: RowPath) -> Item {
        var local = path.row
        if path.section == 0 && local >= 0 {
            for child in children {
                let count = rowCount(of: child)
                if local < count { return child.item(at: RowPath(section: 0, row: local)) }
                local -= count
            }
        }
        preconditionFailure("MultiRowDataSource has \(numberOfRows(in: 0)) rows in section 0; asked for \(path)")
    }

    override func childDidChange(_ child: DataSource<Item>, _ changes: ChangeSet) {
        guard let index = children.firstIndex(where: { $0 === child }) else { return }
        let offset = rowOffset(ofChildAt: index)
        var shifted = ChangeSet()
        for change in changes.history {
            switch change {
            case .rowInserted(let path) where path.section == 0,
                .rowDeleted(let path) where path.section == 0,
                .rowChanged(let path) where path.section == 0:
                shifted.append(contentsOf: ChangeSet([change.applyingOffset(section: 0, row: offset)]))
            case .rowMoved(let from, let to) where from.section == 0 && to.section == 0:
                shifted.append(contentsOf: ChangeSet([change.applyingOffset(section: 0, row: offset)]))
            case .sectionInserted, .sectionDeleted, .sectionChanged:
                shifted.changedSection(0)
            case .rowInserted, .rowDeleted, .rowChanged, .rowMoved:
                continue  // rows of sections this source does not show
            }
        }
        record(shifted)
    }

    private func rowCount(of child: DataSource<Item>) -> Int {
        child.numberOfSections > 0 ? child.numberOfRows(in: 0) : 0
    }

    private func rowOffset(ofChildAt index: Int) -> Int {
        children[..<index].reduce(0) { $0 + rowCount(of: $1) }
    }

    private func adoptChecked(_ child: DataSource<Item>) -> Bool {
        guard child.adopt(by: self) else { return false }
        if child.numberOfSections > 1 {
            Diagnostics.report(
                .multiRowChildHasSections,
                "\(type(of: child)) with \(child.numberOfSections) sections was added to a MultiRowDataSource, which shows only section 0 of each child. Put it in a MultiSectionDataSource instead."
            )
        }
        return true
    }
}
