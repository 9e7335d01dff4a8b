import MainlineBindings
import MainlineTesting
import Testing

/// `EditDataSource`: the edit source appended on editing and removed first on leaving it.
@MainActor
@Suite("EditDataSource")
struct EditDataSourceTests {
    @Test func enteringEditingAppendsTheEditSourcesSections() {
        let loop = TestLoop()
        let tasks = ArrayModel(["write", "review"])
        let content = MutableArrayDataSource(model: tasks, loop: loop) { task, _ in task }
        let editable = EditDataSource(content: content, editSource: ArrayDataSource(["+ add"], loop: loop), loop: loop)
        let host = MirrorHost(editable)
        #expect(editable.numberOfSections == 1)
        editable.setEditing(true)
        loop.runUntilIdle()
        #expect(editable.isEditing)
        #expect(host.history == [.sectionInserted(1)])
        #expect(host.rows == [["write", "review"], ["+ add"]])
    }

    @Test func leavingEditingRemovesTheEditSourceFirstThenTheCommitFollows() {
        let loop = TestLoop()
        let tasks = ArrayModel(["write", "review"])
        let content = MutableArrayDataSource(model: tasks, loop: loop) { task, _ in task }
        let editable = EditDataSource(content: content, editSource: ArrayDataSource(["+ add"], loop: loop), loop: loop)
        editable.setEditing(true)
        loop.runUntilIdle()
        let host = MirrorHost(editable)
        editable.setEditing(false) { tasks.append("ship") }
        loop.runUntilIdle()
        #expect(host.delivered == [ChangeSet([.sectionDeleted(1), .rowInserted(path(0, 2))])])
        #expect(host.rows == [["write", "review", "ship"]])
        editable.setEditing(false)
        loop.runUntilIdle()
        #expect(host.delivered.count == 1, "setting the same state again records nothing")
    }
}
