import MainlineLoop

/// A data source over fixed rows: a header row, a footer, a static menu in a tree of sources.
///
/// Must be used on the main actor.
///
/// ```swift
/// let header = ArrayDataSource(["Today"])
/// let root = MultiRowDataSource(children: [header, tasks])
/// ```
@MainActor
public final class ArrayDataSource<Item>: DataSource<Item> {
    /// The rows, one array per section.
    public let sections: [[Item]]

    /// Creates a source with one section holding `items`.
    ///
    /// - Parameters:
    ///   - items: The rows.
    ///   - loop: The loop that delivers change sets (it records none); the main loop unless a test passes a
    ///     `TestLoop`.
    public convenience init(_ items: [Item], loop: any Loop = MainLoop.main) {
        self.init(sections: [items], loop: loop)
    }

    /// Creates a source with the given sections.
    ///
    /// - Parameters:
    ///   - sections: The rows, one array per section.
    ///   - loop: The loop that delivers change sets (it records none); the main loop unless a test passes a
    ///     `TestLoop`.
    public init(sections: [[Item]], loop: any Loop = MainLoop.main) {
        self.sections = sections
        super.init(loop: loop)
    }

    /// How many sections the source has.
    public override var numberOfSections: Int { sections.count }

    /// How many rows `section` has; 0 for a section the source does not have.
    public override func numberOfRows(in section: Int) -> Int {
        sections.indices.contains(section) ? sections[section].count : 0
    }

    /// The row at `path`; a path outside the source traps.
    public override func item(at path: RowPath) -> Item {
        sections[path.section][path.row]
    }
}
