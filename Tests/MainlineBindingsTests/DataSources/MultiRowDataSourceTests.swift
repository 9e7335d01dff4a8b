import MainlineBindings
import MainlineTesting
import Testing

/// `MultiRowDataSource`: children concatenated by row in one section.
@MainActor
@Suite("MultiRowDataSource")
struct MultiRowDataSourceTests {
    @Test func itConcatenatesTheChildrensRows() {
        let loop = TestLoop()
        let root = MultiRowDataSource(children: [rows("a", 3, loop: loop), rows("b", 5, loop: loop)], loop: loop)
        #expect(root.numberOfSections == 1)
        #expect(root.numberOfRows(in: 0) == 8)
        #expect(root.item(at: path(0, 3)) == "b.0")
    }

    @Test func addingAChildOfTwoAtTheEndInsertsRowsEightAndNine() {
        let loop = TestLoop()
        let root = MultiRowDataSource(children: [rows("a", 3, loop: loop), rows("b", 5, loop: loop)], loop: loop)
        let host = MirrorHost(root)
        root.append(rows("c", 2, loop: loop))
        loop.runUntilIdle()
        #expect(host.history == [.rowInserted(path(0, 8)), .rowInserted(path(0, 9))])
        #expect(host.rows == root.snapshot())
    }

    @Test func insertingAChildAtZeroInsertsRowsZeroAndOne() {
        let loop = TestLoop()
        let root = MultiRowDataSource(children: [rows("a", 3, loop: loop), rows("b", 5, loop: loop)], loop: loop)
        let host = MirrorHost(root)
        root.insert(rows("c", 2, loop: loop), at: 0)
        loop.runUntilIdle()
        #expect(host.history == [.rowInserted(path(0, 0)), .rowInserted(path(0, 1))])
        #expect(host.rows == root.snapshot())
    }

    @Test func removingTheFirstChildDeletesRowsZeroToTwo() {
        let loop = TestLoop()
        let root = MultiRowDataSource(children: [rows("a", 3, loop: loop), rows("b", 5, loop: loop)], loop: loop)
        let host = MirrorHost(root)
        root.remove(at: 0)
        loop.runUntilIdle()
        #expect(host.history == (0...2).reversed().map { .rowDeleted(path(0, $0)) })
        #expect(host.rows == root.snapshot())
    }

    @Test func removingTheSecondChildDeletesRowsThreeToSeven() {
        let loop = TestLoop()
        let root = MultiRowDataSource(children: [rows("a", 3, loop: loop), rows("b", 5, loop: loop)], loop: loop)
        let host = MirrorHost(root)
        root.remove(at: 1)
        loop.runUntilIdle()
        #expect(host.history == (3...7).reversed().map { .rowDeleted(path(0, $0)) })
        #expect(host.rows == root.snapshot())
    }

    @Test func changesOfTwoChildrenInOneIterationArriveAsOneChangeSetWithTheirOffsetsAtTheTime() {
        let loop = TestLoop()
        let first = ArrayModel(["a", "b"])
        let second = ArrayModel(["c"])
        let root = MultiRowDataSource(
            children: [
                MutableArrayDataSource(model: first, loop: loop) { element, _ in element },
                MutableArrayDataSource(model: second, loop: loop) { element, _ in element },
            ],
            loop: loop
        )
        let host = MirrorHost(root)
        loop.post {
            second.append("d")  // row 3 (after a, b, c)
            first.remove(at: 0)  // row 0
            second.remove(at: 0)  // row 1 now: first has one row left
        }
        loop.runUntilIdle()
        #expect(
            host.delivered == [ChangeSet([.rowInserted(path(0, 3)), .rowDeleted(path(0, 0)), .rowDeleted(path(0, 1))])]
        )
        #expect(host.rows == [["b", "d"]])
    }

    @Test func aChildWithSeveralSectionsIsReported() {
        let loop = TestLoop()
        let diagnostics = DiagnosticsRecorder()
        let root = diagnostics.record { MultiRowDataSource(children: [sections("a", 2, loop: loop)], loop: loop) }
        #expect(diagnostics.kinds == [.multiRowChildHasSections])
        #expect(root.numberOfRows(in: 0) == 1)
    }
}
