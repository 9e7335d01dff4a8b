import MainlineCoordinators
import MainlineTesting
import Testing

/// One row of the spec's populate table: a collection, what is merged into it, and what it becomes.
struct PopulateRow: Sendable, CustomTestStringConvertible {
    let rule: String
    let current: [Book]
    let input: [Book]
    let expected: [Book]

    var testDescription: String { rule }

    static let table: [PopulateRow] = [
        PopulateRow(
            rule: "empty input changes nothing",
            current: [Book(1, "a")],
            input: [],
            expected: [Book(1, "a")]
        ),
        PopulateRow(
            rule: "new ids are appended in order of first appearance",
            current: [Book(1, "a")],
            input: [Book(3, "c"), Book(2, "b"), Book(3, "c")],
            expected: [Book(1, "a"), Book(3, "c"), Book(2, "b")]
        ),
        PopulateRow(
            rule: "a known id is replaced in place",
            current: [Book(1, "a"), Book(2, "b"), Book(3, "c")],
            input: [Book(2, "B")],
            expected: [Book(1, "a"), Book(2, "B"), Book(3, "c")]
        ),
        PopulateRow(
            rule: "absent ids are kept and the input's order does not reorder known ones",
            current: [Book(1, "a"), Book(2, "b"), Book(3, "c")],
            input: [Book(3, "C"), Book(1, "A")],
            expected: [Book(1, "A"), Book(2, "b"), Book(3, "C")]
        ),
        PopulateRow(
            rule: "the last duplicate wins, at the position of the first",
            current: [Book(1, "a")],
            input: [Book(2, "x"), Book(1, "b"), Book(2, "y"), Book(1, "c")],
            expected: [Book(1, "c"), Book(2, "y")]
        ),
        PopulateRow(
            rule: "elements equal to the cached ones change nothing",
            current: [Book(1, "a"), Book(2, "b")],
            input: [Book(2, "b"), Book(1, "a")],
            expected: [Book(1, "a"), Book(2, "b")]
        ),
        PopulateRow(
            rule: "every cached element with a merged id is replaced",
            current: [Book(1, "a"), Book(2, "b"), Book(1, "a'")],
            input: [Book(1, "z")],
            expected: [Book(1, "z"), Book(2, "b"), Book(1, "z")]
        ),
        PopulateRow(
            rule: "an empty collection takes the input, deduplicated",
            current: [],
            input: [Book(1, "a"), Book(1, "b")],
            expected: [Book(1, "b")]
        ),
    ]
}

/// `populate(_:with:)`: the merge by id of spec/coordinators-and-bindings.md, on plain and optional collections.
@MainActor
@Suite("DataCache.populate")
struct DataCachePopulateTests {
    @Test(arguments: PopulateRow.table)
    func populateMergesByID(_ row: PopulateRow) {
        let loop = TestLoop()
        let cache = DataCache(value: Library(books: row.current), loop: loop)
        let seen = ObservedValues<[Book]>()
        let observation = cache.observe { seen.add($0.books) }
        cache.populate(\.books, with: row.input)
        #expect(cache.value.books == row.expected)
        let changed = row.current != row.expected
        #expect(seen.values == (changed ? [row.current, row.expected] : [row.current]), "one notification per change")
        observation.dispose()
    }

    @Test(arguments: PopulateRow.table)
    func populatingAnOptionalCollectionThatExistsMergesTheSameWay(_ row: PopulateRow) {
        let loop = TestLoop()
        let cache = DataCache(value: Library(wishlist: row.current), loop: loop)
        var notifications = 0
        let observation = cache.observe { _ in notifications += 1 }
        cache.populate(\.wishlist, with: row.input)
        #expect(cache.value.wishlist == row.expected)
        #expect(notifications == (row.current != row.expected ? 2 : 1))
        observation.dispose()
    }

    @Test func aNilOptionalCollectionIsCreatedFromTheInput() {
        let loop = TestLoop()
        let cache = DataCache(value: Library(), loop: loop)
        let seen = ObservedValues<[Book]?>()
        let observation = cache.observe { seen.add($0.wishlist) }
        cache.populate(\.wishlist, with: [Book(2, "b"), Book(1, "a"), Book(2, "B")])
        #expect(cache.value.wishlist == [Book(2, "B"), Book(1, "a")])
        #expect(seen.values == [nil, [Book(2, "B"), Book(1, "a")]])
        observation.dispose()
    }

    @Test func emptyInputLeavesANilOptionalCollectionNilAndNotifiesNoOne() {
        let loop = TestLoop()
        let cache = DataCache(value: Library(), loop: loop)
        var notifications = 0
        let observation = cache.observe { _ in notifications += 1 }
        cache.populate(\.wishlist, with: [])
        #expect(cache.value.wishlist == nil)
        #expect(notifications == 1, "only the call at registration")
        observation.dispose()
    }

    @Test func emptyInputLeavesAnEmptyOptionalCollectionEmptyRatherThanNil() {
        let loop = TestLoop()
        let cache = DataCache(value: Library(wishlist: []), loop: loop)
        cache.populate(\.wishlist, with: [])
        #expect(cache.value.wishlist == [])
    }

    @Test func anySequenceOfElementsCanBePopulated() {
        let loop = TestLoop()
        let cache = DataCache(value: Library(books: [Book(1, "a")]), loop: loop)
        cache.populate(\.books, with: (1...3).lazy.map { Book($0, "v2") })
        #expect(cache.value.books == [Book(1, "v2"), Book(2, "v2"), Book(3, "v2")])
    }
}
