/// Where a value sits in a bundle, as errors name it: `name`, `address.street`, `ids[2]`, `stops[1].city`.
///
/// A value type; all operations on it are thread-safe.
struct _RowPath: Sendable, CustomStringConvertible {
    private let text: String

    /// The bundle itself (the top level of a payload).
    static let root = _RowPath(text: "")

    private init(text: String) {
        self.text = text
    }

    /// Whether this is the bundle itself rather than one of its rows.
    var isRoot: Bool { text.isEmpty }

    /// The path of the row `key` of the bundle at this path.
    func row(_ key: String) -> _RowPath {
        _RowPath(text: isRoot ? key : "\(text).\(key)")
    }

    /// The path of element `index` of the array at this path.
    func element(_ index: Int) -> _RowPath {
        _RowPath(text: "\(text)[\(index)]")
    }

    var description: String { text }
}
