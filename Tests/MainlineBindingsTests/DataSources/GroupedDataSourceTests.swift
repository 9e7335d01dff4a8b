import MainlineBindings
import MainlineTesting
import Testing

struct Chore: Equatable {
    var title: String
    var room: String
}

/// `GroupedDataSource`: one section per key, diffs coalesced into one change set per loop iteration.
@MainActor
@Suite("GroupedDataSource")
struct GroupedDataSourceTests {
    static func byRoom(_ model: ArrayModel<Chore>, _ loop: TestLoop) -> GroupedDataSource<Chore, String> {
        GroupedDataSource(model: model, loop: loop, groupedBy: \.room, orderedBy: <)
    }

    @Test func itGroupsByKeyInKeyOrderKeepingTheModelsOrderInsideAGroup() {
        let loop = TestLoop()
        let model = ArrayModel([
            Chore(title: "dishes", room: "kitchen"), Chore(title: "bed", room: "bedroom"),
            Chore(title: "oven", room: "kitchen"),
        ])
        let source = Self.byRoom(model, loop)
        #expect(source.groups.map(\.key) == ["bedroom", "kitchen"])
        #expect(source.snapshot().map { $0.map(\.title) } == [["bed"], ["dishes", "oven"]])
    }

    @Test func insertsInOneIterationAreRegroupedOnceIntoOneChangeSet() {
        let loop = TestLoop()
        let model = ArrayModel([Chore(title: "dishes", room: "kitchen")])
        let source = Self.byRoom(model, loop)
        let host = MirrorHost(source)
        loop.post {
            model.append(Chore(title: "oven", room: "kitchen"))
            model.append(Chore(title: "bed", room: "bedroom"))
            #expect(source.numberOfSections == 1, "regrouping waits for settle")
        }
        loop.runIteration()
        #expect(host.delivered == [ChangeSet([.sectionInserted(0), .rowInserted(path(1, 1))])])
        #expect(host.rows == source.snapshot())
        loop.runUntilIdle()
        #expect(host.delivered.count == 1)
    }

    @Test func deletesRemoveRowsAndEmptiedGroups() {
        let loop = TestLoop()
        let model = ArrayModel([
            Chore(title: "bed", room: "bedroom"), Chore(title: "dishes", room: "kitchen"),
            Chore(title: "oven", room: "kitchen"),
        ])
        let source = Self.byRoom(model, loop)
        let host = MirrorHost(source)
        model.remove(at: 0)
        model.remove(at: 0)
        loop.runUntilIdle()
        #expect(host.delivered == [ChangeSet([.sectionDeleted(0), .rowDeleted(path(0, 0))])])
        #expect(host.rows == [[Chore(title: "oven", room: "kitchen")]])
    }

    @Test func rearrangingGroupsDeletesAndInsertsTheSectionsThatMoved() {
        let loop = TestLoop()
        let model = ArrayModel([Chore(title: "dishes", room: "kitchen"), Chore(title: "bed", room: "bedroom")])
        let source = GroupedDataSource(model: model, loop: loop, groupedBy: \.room)  // order of first appearance
        let host = MirrorHost(source)
        #expect(source.groups.map(\.key) == ["kitchen", "bedroom"])
        model.move(from: 1, to: 0)
        loop.runUntilIdle()
        #expect(source.groups.map(\.key) == ["bedroom", "kitchen"])
        #expect(host.delivered.count == 1)
        #expect(host.rows == source.snapshot())
        #expect(host.history.contains(.sectionDeleted(0)) || host.history.contains(.sectionDeleted(1)))
    }

    @Test func aMutationThatLeavesTheGroupsAsTheyWereDeliversNothing() {
        let loop = TestLoop()
        let model = ArrayModel([Chore(title: "dishes", room: "kitchen")])
        let source = Self.byRoom(model, loop)
        let host = MirrorHost(source)
        model.replace(at: 0, with: Chore(title: "dishes", room: "kitchen"))
        loop.runUntilIdle()
        #expect(host.delivered.isEmpty)
    }
}
