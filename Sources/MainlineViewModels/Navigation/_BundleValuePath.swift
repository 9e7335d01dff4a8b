/// Where a value sits in a bundle, as errors name it: `name`, `address.street`, `ids[2]`, `stops[1].city`.
///
/// A value type; all operations on it are thread-safe.
///
/// Not `MainlineBindings`' `RowPath`, which is a section and a row of a table: this names a value inside a bundle by
/// its keys and indices, like `Codable`'s coding path, for error messages only.
struct _BundleValuePath: Sendable, CustomStringConvertible {
    private let text: String

    /// The bundle itself (the top level of a payload).
    static let root = _BundleValuePath(text: "")

    private init(text: String) {
        self.text = text
    }

    /// Whether this is the bundle itself rather than one of its rows.
    var isRoot: Bool { text.isEmpty }

    /// The path of the row `key` of the bundle at this path.
    func row(_ key: String) -> _BundleValuePath {
        _BundleValuePath(text: isRoot ? key : "\(text).\(key)")
    }

    /// The path of element `index` of the array at this path.
    func element(_ index: Int) -> _BundleValuePath {
        _BundleValuePath(text: "\(text)[\(index)]")
    }

    var description: String { text }
}
