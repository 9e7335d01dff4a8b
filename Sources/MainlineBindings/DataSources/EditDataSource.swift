import MainlineLoop

/// A data source that shows its content, and while editing an edit source after it (an "add a row" section, a
/// form).
///
/// Must be used on the main actor.
///
/// ```swift
/// let editable = EditDataSource(content: tasks, editSource: ArrayDataSource([addRow]))
/// editable.setEditing(true)                       // the edit source's sections are inserted after the content
/// editable.setEditing(false) { tasks.append("ship") }   // its sections are deleted first, then the commit follows
/// ```
///
/// The sections are the content's, then (while editing) the edit source's, numbered as a
/// ``MultiSectionDataSource`` numbers its children.
@MainActor
public final class EditDataSource<Item>: DataSource<Item> {
    /// What is always shown.
    public let content: DataSource<Item>
    /// What is appended while editing.
    public let editSource: DataSource<Item>
    /// Whether the edit source is shown.
    public private(set) var isEditing = false
    private let sections: MultiSectionDataSource<Item>

    /// Creates a source that is not editing.
    ///
    /// - Parameters:
    ///   - content: What is always shown; a source without a parent.
    ///   - editSource: What is appended while editing; a source without a parent.
    ///   - loop: The loop that delivers change sets; the main loop unless a test passes a `TestLoop`.
    public init(content: DataSource<Item>, editSource: DataSource<Item>, loop: any Loop = MainLoop.main) {
        self.content = content
        self.editSource = editSource
        sections = MultiSectionDataSource(children: [content], loop: loop)
        super.init(loop: loop)
        _ = sections.adopt(by: self)
    }

    /// Enters or leaves editing, and runs `changes` in the same change set.
    ///
    /// Entering appends the edit source, then runs `changes`; leaving removes the edit source **first**, then runs
    /// `changes` (typically committing the edit to the model), so a host sees the edit rows go before the content
    /// changes. Setting the current state again only runs `changes`.
    ///
    /// - Parameters:
    ///   - editing: Whether to edit.
    ///   - changes: Work whose changes follow the edit source's in the history.
    public func setEditing(_ editing: Bool, applying changes: () -> Void = {}) {
        if editing != isEditing {
            isEditing = editing
            if editing { sections.append(editSource) } else { sections.remove(editSource) }
        }
        changes()
    }

    /// The content's sections, then the edit source's while editing.
    public override var numberOfSections: Int { sections.numberOfSections }

    /// The rows of the section of the content or edit source `section` falls in.
    public override func numberOfRows(in section: Int) -> Int { sections.numberOfRows(in: section) }

    /// The item of the content or edit source `path` falls in; a path outside the source traps.
    public override func item(at path: RowPath) -> Item { sections.item(at: path) }

    /// The title the content or edit source gives the section.
    public override func title(forSection section: Int) -> String? { sections.title(forSection: section) }

    /// The first section with `title`, in the content and then the edit source.
    public override func section(forTitle title: String) -> Int? { sections.section(forTitle: title) }

    override func childDidChange(_ child: DataSource<Item>, _ changes: ChangeSet) {
        record(changes)
    }
}
