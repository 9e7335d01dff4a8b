/// What the observers of a cache saw, in order. (Named for the data-cache tests, to leave `Seen` to others.)
@MainActor
final class ObservedValues<T> {
    private(set) var values: [T] = []
    func add(_ value: T) { values.append(value) }
}

/// An element of the test model's collections.
struct Book: Identifiable, Equatable, Sendable, CustomStringConvertible {
    var id: Int
    var title: String

    init(_ id: Int, _ title: String) {
        self.id = id
        self.title = title
    }

    var description: String { "\(id)\(title)" }
}

/// The model the cache tests hold.
struct Library: Equatable, Sendable {
    var user: String?
    var books: [Book] = []
    var wishlist: [Book]?
    var downloads = 0
}
