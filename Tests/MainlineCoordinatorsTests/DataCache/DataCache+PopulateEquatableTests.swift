import Foundation
import MainlineCoordinators
import MainlineLoop
import MainlineTesting
import Testing

/// A model whose collections hold elements that are `Equatable` only.
struct Tagged: Equatable, Sendable {
    var tags: [String] = []
    var pinned: [String]?
}

/// One row of upstream FuturedKit's merge by equality: a collection, what is merged into it, and what it becomes.
struct EqualityPopulateRow: Sendable, CustomTestStringConvertible {
    let rule: String
    let current: [String]
    let input: [String]
    let expected: [String]

    var testDescription: String { rule }

    static let table: [EqualityPopulateRow] = [
        EqualityPopulateRow(rule: "empty input changes nothing", current: ["a"], input: [], expected: ["a"]),
        EqualityPopulateRow(
            rule: "new elements are appended in the input's order",
            current: ["a"],
            input: ["c", "b"],
            expected: ["a", "c", "b"]
        ),
        EqualityPopulateRow(
            rule: "a cached element equal to an input one moves to the end with the input (upstream's test)",
            current: ["1", "2", "3"],
            input: ["2", "4", "5"],
            expected: ["1", "3", "2", "4", "5"]
        ),
        EqualityPopulateRow(
            rule: "the same elements in the same order change nothing",
            current: ["1", "2", "3"],
            input: ["1", "2", "3"],
            expected: ["1", "2", "3"]
        ),
        EqualityPopulateRow(
            rule: "input equal to the collection's tail changes nothing",
            current: ["1", "2", "3"],
            input: ["2", "3"],
            expected: ["1", "2", "3"]
        ),
        EqualityPopulateRow(
            rule: "the input's order reorders cached elements",
            current: ["1", "2", "3"],
            input: ["3", "1"],
            expected: ["2", "3", "1"]
        ),
        EqualityPopulateRow(
            rule: "duplicates in the input are kept",
            current: ["a"],
            input: ["b", "b"],
            expected: ["a", "b", "b"]
        ),
        EqualityPopulateRow(
            rule: "every cached copy of an input element is removed",
            current: ["a", "b", "a"],
            input: ["a"],
            expected: ["b", "a"]
        ),
    ]
}

/// `populate(_:with:)` for `Equatable` elements (issue 13, item 9): upstream FuturedKit's merge by equality, on plain
/// and optional collections, beside the merge by id that `Identifiable` elements keep.
@MainActor
@Suite("DataCache.populate by equality")
struct DataCachePopulateEquatableTests {
    @Test(arguments: EqualityPopulateRow.table)
    func populateMergesByEquality(_ row: EqualityPopulateRow) {
        let cache = DataCache(value: Tagged(tags: row.current), loop: TestLoop())
        let seen = ObservedValues<[String]>()
        let observation = cache.observe { seen.add($0.tags) }
        cache.populate(\.tags, with: row.input)
        #expect(cache.value.tags == row.expected)
        let changed = row.current != row.expected
        #expect(seen.values == (changed ? [row.current, row.expected] : [row.current]), "one notification per change")
        observation.dispose()
    }

    @Test(arguments: EqualityPopulateRow.table)
    func populatingAnOptionalCollectionThatExistsMergesTheSameWay(_ row: EqualityPopulateRow) {
        let cache = DataCache(value: Tagged(pinned: row.current), loop: TestLoop())
        var notifications = 0
        let observation = cache.observe { _ in notifications += 1 }
        cache.populate(\.pinned, with: row.input)
        #expect(cache.value.pinned == row.expected)
        #expect(notifications == (row.current != row.expected ? 2 : 1))
        observation.dispose()
    }

    @Test func aNilOptionalCollectionIsCreatedFromTheInputAndEmptyInputLeavesItNil() {
        let cache = DataCache(value: Tagged(), loop: TestLoop())
        cache.populate(\.pinned, with: [String]())
        #expect(cache.value.pinned == nil)
        cache.populate(\.pinned, with: ["b", "a", "b"])
        #expect(cache.value.pinned == ["b", "a", "b"], "upstream keeps the input as given")
    }

    @Test func anySequenceOfElementsCanBePopulated() {
        let cache = DataCache(value: Tagged(tags: ["x1"]), loop: TestLoop())
        cache.populate(\.tags, with: (1...3).lazy.map { "x\($0)" })
        #expect(cache.value.tags == ["x1", "x2", "x3"])
    }

    @Test func elementsThatAreAlsoIdentifiableStillMergeByID() {
        let cache = DataCache(
            value: Library(books: [Book(1, "a"), Book(2, "b")], wishlist: [Book(1, "a")]),
            loop: TestLoop()
        )
        cache.populate(\.books, with: [Book(1, "A")])
        cache.populate(\.wishlist, with: [Book(1, "A")])
        #expect(cache.value.books == [Book(1, "A"), Book(2, "b")], "replaced in place by id, not appended")
        #expect(cache.value.wishlist == [Book(1, "A")])
    }

    @Test func postedFromAnotherThreadTheMergeByEqualityIsAppliedOnTheLoopInOrder() async {
        let loop = TestLoop()
        let cache = DataCache(value: Tagged(tags: ["a", "b"]), loop: loop)
        let done = _Locked(false)
        Thread.detachNewThread {
            cache.post(populating: \.tags, with: ["a", "c"])
            cache.post(populating: \.pinned, with: ["p"])
            cache.post(populating: \.tags, with: ["b"])
            done.withLock { $0 = true }
        }
        await loop.run(until: { done.withLock { $0 } && !loop.hasPendingWork })
        #expect(cache.value == Tagged(tags: ["a", "c", "b"], pinned: ["p"]))
        #expect(!loop.hasPendingWork)
    }

    @Test func postedIdentifiableAndEquatableElementsMergeByID() {
        let loop = TestLoop()
        let cache = DataCache(value: Library(books: [Book(1, "a"), Book(2, "b")]), loop: loop)
        #expect(cache.post(populating: \.books, with: [Book(1, "A")]))
        #expect(cache.post(populating: \.wishlist, with: [Book(3, "c")]))
        loop.runUntilIdle()
        #expect(cache.value.books == [Book(1, "A"), Book(2, "b")])
        #expect(cache.value.wishlist == [Book(3, "c")])
    }
}
