import MainlineBindings
import MainlineTesting
import Testing

/// `MultiSectionDataSource`: children concatenated by section, offsets applied on the way to the root.
@MainActor
@Suite("MultiSectionDataSource")
struct MultiSectionDataSourceTests {
    @Test func itConcatenatesTheChildrensSections() {
        let loop = TestLoop()
        let root = MultiSectionDataSource(
            children: [sections("a", 3, loop: loop), sections("b", 5, loop: loop)],
            loop: loop
        )
        #expect(root.numberOfSections == 8)
        #expect(root.item(at: path(3, 0)) == "b.0")
        #expect(root.numberOfRows(in: 7) == 1)
        #expect(root.numberOfRows(in: 8) == 0)
    }

    @Test func addingAChildOfTwoAtTheEndInsertsSectionsEightAndNine() {
        let loop = TestLoop()
        let root = MultiSectionDataSource(
            children: [sections("a", 3, loop: loop), sections("b", 5, loop: loop)],
            loop: loop
        )
        let host = MirrorHost(root)
        root.append(sections("c", 2, loop: loop))
        loop.runUntilIdle()
        #expect(host.history == [.sectionInserted(8), .sectionInserted(9)])
        #expect(host.rows == root.snapshot())
    }

    @Test func insertingAChildAtZeroInsertsSectionsZeroAndOne() {
        let loop = TestLoop()
        let root = MultiSectionDataSource(
            children: [sections("a", 3, loop: loop), sections("b", 5, loop: loop)],
            loop: loop
        )
        let host = MirrorHost(root)
        root.insert(sections("c", 2, loop: loop), at: 0)
        loop.runUntilIdle()
        #expect(host.history == [.sectionInserted(0), .sectionInserted(1)])
        #expect(host.rows == root.snapshot())
    }

    @Test func removingTheFirstChildDeletesSectionsZeroToTwo() {
        let loop = TestLoop()
        let root = MultiSectionDataSource(
            children: [sections("a", 3, loop: loop), sections("b", 5, loop: loop)],
            loop: loop
        )
        let host = MirrorHost(root)
        root.remove(at: 0)
        loop.runUntilIdle()
        #expect(host.history == [.sectionDeleted(2), .sectionDeleted(1), .sectionDeleted(0)])
        #expect(host.rows == root.snapshot())
    }

    @Test func removingTheSecondChildDeletesSectionsThreeToSeven() {
        let loop = TestLoop()
        let second = sections("b", 5, loop: loop)
        let root = MultiSectionDataSource(children: [sections("a", 3, loop: loop), second], loop: loop)
        let host = MirrorHost(root)
        #expect(root.remove(second))
        loop.runUntilIdle()
        #expect(host.history == (3...7).reversed().map { .sectionDeleted($0) })
        #expect(host.rows == root.snapshot())
    }

    @Test func aChildsChangesReachTheRootShiftedByTheSectionsBeforeIt() {
        let loop = TestLoop()
        let model = ArrayModel(["x", "y"])
        let list = MutableArrayDataSource(model: model, loop: loop) { element, _ in element }
        let root = MultiSectionDataSource(children: [sections("a", 3, loop: loop), list], loop: loop)
        let host = MirrorHost(root)
        model.insert("w", at: 1)
        model.move(from: 0, to: 2)
        loop.runUntilIdle()
        #expect(host.delivered == [ChangeSet([.rowInserted(path(3, 1)), .rowMoved(from: path(3, 0), to: path(3, 2))])])
        #expect(host.rows == root.snapshot())
    }

    @Test func titleLookupsAddTheChildsOffset() {
        let loop = TestLoop()
        let model = ArrayModel(["apple", "avocado", "banana"])
        let grouped = GroupedDataSource(
            model: model,
            loop: loop,
            groupedBy: { String($0.prefix(1)) },
            title: { $0.uppercased() }
        )
        let root = MultiSectionDataSource(children: [sections("a", 3, loop: loop), grouped], loop: loop)
        #expect(root.section(forTitle: "B") == 4)
        #expect(root.title(forSection: 3) == "A")
        #expect(root.section(forTitle: "Z") == nil)
    }

    @Test func misuseIsReportedAndChangesNothing() {
        let loop = TestLoop()
        let child = sections("a", 3, loop: loop)
        let root = MultiSectionDataSource(children: [child], loop: loop)
        let other = MultiSectionDataSource<String>(loop: loop)
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record {
            other.append(child)
            root.insert(sections("b", 1, loop: loop), at: 5)
            #expect(root.remove(at: 1) == nil)
        }
        #expect(
            diagnostics.kinds == [
                .dataSourceHasParent, .dataSourceChildIndexOutOfRange, .dataSourceChildIndexOutOfRange,
            ]
        )
        #expect(other.numberOfSections == 0)
        #expect(root.numberOfSections == 3)
        #expect(!root.hasPendingChanges)
    }
}
