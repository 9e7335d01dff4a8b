import MainlineBindings
import Testing

func path(_ section: Int, _ row: Int) -> RowPath { RowPath(section: section, row: row) }

/// `ChangeSet`: recorders, offsets, `cleanUp`, the index-path replay table and value semantics
/// (spec/coordinators-and-bindings.md, "Change sets and data sources").
@Suite("ChangeSet")
struct ChangeSetTests {
    @Test func everyRecorderAppendsItsChangeInOrder() {
        var changes = ChangeSet()
        changes.insertedSection(1)
        changes.deletedSection(2)
        changes.changedSection(3)
        changes.insertedRow(at: path(0, 1))
        changes.deletedRow(at: path(0, 2))
        changes.changedRow(at: path(0, 3))
        changes.movedRow(from: path(0, 4), to: path(1, 0))
        #expect(
            changes.history == [
                .sectionInserted(1), .sectionDeleted(2), .sectionChanged(3), .rowInserted(path(0, 1)),
                .rowDeleted(path(0, 2)), .rowChanged(path(0, 3)), .rowMoved(from: path(0, 4), to: path(1, 0)),
            ]
        )
        #expect(!changes.isEmpty)
        #expect(ChangeSet().isEmpty)
    }

    @Test func aMoveToTheSamePlaceIsRecordedAsAChange() {
        var changes = ChangeSet()
        changes.movedRow(from: path(2, 5), to: path(2, 5))
        #expect(changes.history == [.rowChanged(path(2, 5))])
    }

    @Test func offsetsShiftRowsBySectionAndRowAndSectionsBySectionOnly() {
        var changes = ChangeSet([
            .sectionInserted(0), .sectionDeleted(1), .sectionChanged(2), .rowInserted(path(0, 0)),
            .rowDeleted(path(1, 2)), .rowChanged(path(0, 3)), .rowMoved(from: path(0, 1), to: path(1, 4)),
        ])
        changes.applyOffset(section: 3, row: 10)
        #expect(
            changes.history == [
                .sectionInserted(3), .sectionDeleted(4), .sectionChanged(5), .rowInserted(path(3, 10)),
                .rowDeleted(path(4, 12)), .rowChanged(path(3, 13)), .rowMoved(from: path(3, 11), to: path(4, 14)),
            ]
        )
    }

    @Test func cleanUpTurnsAnInsertThenDeleteOfOneSectionIntoAChange() {
        var changes = ChangeSet([
            .sectionInserted(2), .sectionDeleted(2),  // becomes one change
            .sectionInserted(4), .sectionDeleted(5),  // different sections: kept
            .sectionInserted(6), .rowInserted(path(0, 0)), .sectionDeleted(6),  // not adjacent: kept
        ])
        changes.cleanUp()
        #expect(
            changes.history == [
                .sectionChanged(2), .sectionInserted(4), .sectionDeleted(5), .sectionInserted(6),
                .rowInserted(path(0, 0)), .sectionDeleted(6),
            ]
        )
    }

    /// The replay table: each row is (history, old path, expected new path).
    static let replayTable: [(String, [SingleChange], RowPath, RowPath?)] = [
        ("section inserted before", [.sectionInserted(1)], path(1, 4), path(2, 4)),
        ("section inserted after", [.sectionInserted(2)], path(1, 4), path(1, 4)),
        ("its section deleted", [.sectionDeleted(1)], path(1, 4), nil),
        ("a section before deleted", [.sectionDeleted(0)], path(1, 4), path(0, 4)),
        ("its section changed", [.sectionChanged(1)], path(1, 4), path(1, 4)),
        ("row inserted before", [.rowInserted(path(1, 0))], path(1, 4), path(1, 5)),
        ("row inserted at it", [.rowInserted(path(1, 4))], path(1, 4), path(1, 5)),
        ("row inserted after", [.rowInserted(path(1, 5))], path(1, 4), path(1, 4)),
        ("row inserted in another section", [.rowInserted(path(0, 0))], path(1, 4), path(1, 4)),
        ("the row deleted", [.rowDeleted(path(1, 4))], path(1, 4), nil),
        ("row deleted before", [.rowDeleted(path(1, 1))], path(1, 4), path(1, 3)),
        ("row deleted after", [.rowDeleted(path(1, 7))], path(1, 4), path(1, 4)),
        ("the row changed", [.rowChanged(path(1, 4))], path(1, 4), path(1, 4)),
        ("the row moved", [.rowMoved(from: path(1, 4), to: path(0, 2))], path(1, 4), path(0, 2)),
        ("a row moved from before to after", [.rowMoved(from: path(1, 0), to: path(1, 6))], path(1, 4), path(1, 3)),
        ("a row moved from after to before", [.rowMoved(from: path(1, 6), to: path(1, 0))], path(1, 4), path(1, 5)),
        ("a row moved in from another section", [.rowMoved(from: path(0, 0), to: path(1, 2))], path(1, 4), path(1, 5)),
        (
            "a sequence", [.sectionInserted(0), .rowDeleted(path(2, 0)), .rowMoved(from: path(2, 3), to: path(0, 0))],
            path(1, 4), path(0, 0)
        ),
        (
            "deleted midway", [.rowInserted(path(1, 0)), .rowDeleted(path(1, 5)), .rowInserted(path(1, 0))], path(1, 4),
            nil
        ),
    ]

    @Test(arguments: replayTable.indices)
    func indexPathReplayFollowsTheRowThroughTheHistory(_ index: Int) {
        let (name, history, old, expected) = Self.replayTable[index]
        #expect(ChangeSet(history).indexPath(afterChangesFrom: old) == expected, "\(name)")
    }

    @Test func copiesAreIndependent() {
        var original = ChangeSet()
        original.insertedRow(at: path(0, 0))
        var copy = original
        copy.deletedSection(3)
        copy.applyOffset(section: 1, row: 1)
        #expect(original.history == [.rowInserted(path(0, 0))])
        #expect(copy.history == [.rowInserted(path(1, 1)), .sectionDeleted(4)])
    }

    @Test func replayOnAMirrorKeepsMovedRowsAndFetchesInsertedOnes() throws {
        var mirror = [["a", "b", "c"], ["x"]]
        let source = [["c", "new", "a"], ["fresh", "f2"], ["x"]]
        let changes = ChangeSet([
            .rowDeleted(path(0, 1)), .rowMoved(from: path(0, 1), to: path(0, 0)), .rowInserted(path(0, 1)),
            .sectionInserted(1),
        ])
        try changes.replay(on: &mirror, section: { source[$0] }, row: { source[$0.section][$0.row] })
        #expect(mirror == source)
    }

    @Test func aChangeThatDoesNotFitThrowsAndLeavesTheMirrorAlone() {
        var mirror = [["a"]]
        let changes = ChangeSet([.rowDeleted(path(0, 0)), .rowDeleted(path(0, 0))])
        #expect(throws: ChangeSetReplayError(change: .rowDeleted(path(0, 0)), sectionCount: 1)) {
            try changes.replay(on: &mirror, section: { _ in [] }, row: { _ in "" })
        }
        #expect(mirror == [["a"]])
    }
}
