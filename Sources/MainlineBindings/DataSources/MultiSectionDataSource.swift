import MainlineLoop

/// A data source whose sections are its children's sections, one child after another.
///
/// Must be used on the main actor.
///
/// ```swift
/// let root = MultiSectionDataSource(children: [pinned, tasks])    // 3 + 5 sections
/// root.append(archive)                  // 2 more: sections 8 and 9 inserted
/// root.remove(at: 0)                    // sections 2, 1, 0 deleted
/// ```
///
/// - A child's changes reach this source at once, shifted by the sections of the children before it at that
///   moment, and go on to its own parent and observers.
/// - Adding a child records its sections as inserted; removing it records them deleted, last first.
/// - A title lookup (``section(forTitle:)``) asks the children in order and adds the child's offset.
/// - A child has one parent (`dataSourceHasParent`); an index outside the children is misuse
///   (`dataSourceChildIndexOutOfRange`) and changes nothing.
@MainActor
public final class MultiSectionDataSource<Item>: DataSource<Item> {
    /// The children, in order.
    public private(set) var children: [DataSource<Item>] = []

    /// Creates a source over `children`.
    ///
    /// - Parameters:
    ///   - children: The children; each must not have a parent yet.
    ///   - loop: The loop that delivers change sets; the main loop unless a test passes a `TestLoop`.
    public init(children: [DataSource<Item>] = [], loop: any Loop = MainLoop.main) {
        super.init(loop: loop)
        for child in children where child.adopt(by: self) { self.children.append(child) }
    }

    /// Appends `child` after the last child.
    ///
    /// - Parameter child: A source without a parent.
    public func append(_ child: DataSource<Item>) {
        insert(child, at: children.count)
    }

    /// Inserts `child` at `index` among the children and records its sections as inserted.
    ///
    /// - Parameters:
    ///   - child: A source without a parent.
    ///   - index: From 0 to the number of children inclusive.
    public func insert(_ child: DataSource<Item>, at index: Int) {
        guard checkIndex(index, in: 0...children.count), child.adopt(by: self) else { return }
        let offset = sectionOffset(ofChildAt: index)
        children.insert(child, at: index)
        var changes = ChangeSet()
        for section in 0..<child.numberOfSections { changes.insertedSection(offset + section) }
        record(changes)
    }

    /// Removes the child at `index` and records its sections as deleted, last first.
    ///
    /// - Parameter index: A valid child index.
    /// - Returns: The removed child, or `nil` for an index outside the children.
    @discardableResult
    public func remove(at index: Int) -> DataSource<Item>? {
        guard checkIndex(index, in: 0..<children.count) else { return nil }
        let offset = sectionOffset(ofChildAt: index)
        let child = children.remove(at: index)
        child.parent = nil
        var changes = ChangeSet()
        for section in (0..<child.numberOfSections).reversed() { changes.deletedSection(offset + section) }
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

    /// The sum of the children's sections.
    public override var numberOfSections: Int { children.reduce(0) { $0 + $1.numberOfSections } }

    /// The rows of the child section `section` falls in.
    public override func numberOfRows(in section: Int) -> Int {
        guard let (child, local) = locate(section) else { return 0 }
        return child.numberOfRows(in: local)
    }

    /// The item of the child `path` falls in; a path outside the source traps.
    public override func item(at path: RowPath) -> Item {
        guard let (child, local) = locate(path.section) else {
            preconditionFailure("MultiSectionDataSource has \(numberOfSections) sections; asked for \(path)")
        }
        return child.item(at: RowPath(section: local, row: path.row))
    }

    /// The title the child gives its section.
    public override func title(forSection section: Int) -> String? {
        guard let (child, local) = locate(section) else { return nil }
        return child.title(forSection: local)
    }

    /// The first child section with `title`, shifted by the sections of the children before it.
    public override func section(forTitle title: String) -> Int? {
        var offset = 0
        for child in children {
            if let local = child.section(forTitle: title) { return offset + local }
            offset += child.numberOfSections
        }
        return nil
    }

    override func childDidChange(_ child: DataSource<Item>, _ changes: ChangeSet) {
        guard let index = children.firstIndex(where: { $0 === child }) else { return }
        var shifted = changes
        shifted.applyOffset(section: sectionOffset(ofChildAt: index), row: 0)
        record(shifted)
    }

    private func sectionOffset(ofChildAt index: Int) -> Int {
        children[..<index].reduce(0) { $0 + $1.numberOfSections }
    }

    private func locate(_ section: Int) -> (DataSource<Item>, Int)? {
        guard section >= 0 else { return nil }
        var local = section
        for child in children {
            let count = child.numberOfSections
            if local < count { return (child, local) }
            local -= count
        }
        return nil
    }
}

extension DataSource {
    /// Reports an index outside `range` as `dataSourceChildIndexOutOfRange`; `true` when it is inside.
    func checkIndex<R: RangeExpression<Int>>(_ index: Int, in range: R) -> Bool {
        guard range.contains(index) else {
            Diagnostics.report(
                .dataSourceChildIndexOutOfRange,
                "\(type(of: self)) was given child index \(index), outside \(range). Nothing changed."
            )
            return false
        }
        return true
    }
}
