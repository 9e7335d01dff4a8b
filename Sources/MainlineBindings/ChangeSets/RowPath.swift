/// The position of one row: a section and a row inside it.
///
/// `RowPath` is a value type; all operations on it are thread-safe.
///
/// Mainline's own type rather than Foundation's `IndexPath`, so that importing Foundation next to Mainline never
/// makes the name ambiguous. Paths order by section, then by row.
public struct RowPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The section, from 0.
    public var section: Int
    /// The row inside ``section``, from 0.
    public var row: Int

    /// Creates a path.
    ///
    /// - Parameters:
    ///   - section: The section, from 0.
    ///   - row: The row inside the section, from 0.
    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    /// Orders by section, then by row.
    public static func < (lhs: RowPath, rhs: RowPath) -> Bool {
        (lhs.section, lhs.row) < (rhs.section, rhs.row)
    }

    /// `[section, row]`, as tests and logs show it.
    public var description: String { "[\(section), \(row)]" }
}
