/// Where a piece of the loop's work came from: the source location that posted, scheduled or registered it
/// (`#fileID:#line`), and its label when it was given one.
///
/// `LoopSite` is a value type; all operations on it are thread-safe. A site is captured by default arguments at every
/// call that hands work to a loop — ``SerialLoop/post(_:fileID:line:)``, the scheduling calls, ``SerialLoop/whenIdle(_:fileID:line:)``,
/// a ``SettleNotification``'s `init` — so every job, timer, idle body and settle delivery knows it:
/// ``LoopSnapshot`` shows the sites of pending timers and posts, the flight recorder names the site of every slow job,
/// and a stall report names the site of the job that held the loop.
///
/// **Free to capture.** A site holds the addresses of two static strings (the file and the label, which live as long
/// as the program) and a line number: 24 bytes, copied into the job's slot with the job, never allocated and never
/// reference counted. Its strings are decoded only when something reads them.
///
/// ```swift
/// loop.post { refresh() }                        // site: "MyApp/Dashboard.swift:42"
/// loop.post(label: "refresh") { refresh() }      // site: "'refresh' at MyApp/Dashboard.swift:43"
/// ```
public struct LoopSite: Sendable, Hashable, CustomStringConvertible {
    // Addresses as plain words (so the type is Sendable without a promise): they point into the program's static string
    // data (a `StaticString` with a pointer representation), which is immutable and never freed; a string literal of
    // a single scalar, which has no address, is kept in the word itself (see `_Text`).
    private let fileWord: UInt
    private let labelWord: UInt
    private let fileCount: UInt16
    private let labelCount: UInt16
    private let lineNumber: UInt32

    /// A site at a source location, without a label.
    ///
    /// - Parameters:
    ///   - fileID: The file, as `#fileID` spells it (`Module/File.swift`).
    ///   - line: The line.
    @inline(__always)
    public init(fileID: StaticString = #fileID, line: UInt = #line) {
        (fileWord, fileCount) = _Text.word(fileID)
        (labelWord, labelCount) = (0, 0)
        lineNumber = UInt32(truncatingIfNeeded: line)
    }

    /// A site at a source location, with the label stall reports and the inspector show for the work.
    ///
    /// - Parameters:
    ///   - label: What the work is called: a static string, so that it costs nothing to copy and stays a small, fixed
    ///     set of names (a metric dimension of `mainline_loop_stalls`).
    ///   - fileID: The file, as `#fileID` spells it.
    ///   - line: The line.
    @inline(__always)
    public init(label: StaticString, fileID: StaticString = #fileID, line: UInt = #line) {
        (fileWord, fileCount) = _Text.word(fileID)
        (labelWord, labelCount) = _Text.word(label)
        lineNumber = UInt32(truncatingIfNeeded: line)
    }

    /// The file that handed the work to the loop, as `#fileID` spells it: `Module/File.swift`.
    public var fileID: String { _Text.decode(fileWord, fileCount) }

    /// The line that handed the work to the loop.
    public var line: Int { Int(lineNumber) }

    /// The work's label, if it was given one.
    public var label: String? { labelWord == 0 ? nil : _Text.decode(labelWord, labelCount) }

    /// `Module/File.swift:42`.
    public var location: String { "\(fileID):\(line)" }

    /// `Module/File.swift:42`, or `'label' at Module/File.swift:42` for labelled work.
    public var description: String {
        guard let label else { return location }
        return "'\(label)' at \(location)"
    }

    /// Two sites are equal when their files, lines and labels read the same.
    public static func == (lhs: LoopSite, rhs: LoopSite) -> Bool {
        if lhs.fileWord == rhs.fileWord, lhs.labelWord == rhs.labelWord, lhs.lineNumber == rhs.lineNumber,
            lhs.fileCount == rhs.fileCount, lhs.labelCount == rhs.labelCount
        {
            return true
        }
        return lhs.lineNumber == rhs.lineNumber && lhs.fileID == rhs.fileID && lhs.label == rhs.label
    }

    /// Hashes what equality compares: the strings' contents, not their addresses.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(lineNumber)
        hasher.combine(fileID)
        hasher.combine(label)
    }

    /// The site as three words, for the flight recorder's ring (``init(words:)`` reads them back).
    var words: (UInt64, UInt64, UInt64) {
        (
            UInt64(fileWord), UInt64(labelWord),
            UInt64(fileCount) | UInt64(labelCount) << 16 | UInt64(lineNumber) << 32
        )
    }

    /// A site from ``words``.
    package init(words: (UInt64, UInt64, UInt64)) {
        fileWord = UInt(words.0)
        labelWord = UInt(words.1)
        fileCount = UInt16(truncatingIfNeeded: words.2)
        labelCount = UInt16(truncatingIfNeeded: words.2 >> 16)
        lineNumber = UInt32(truncatingIfNeeded: words.2 >> 32)
    }

    /// Whether the site's file and line are those of the same literal as `other`'s (no string is decoded): how the loop
    /// compares the sites of a run of jobs.
    @inline(__always)
    func isSameLiteral(as other: LoopSite) -> Bool {
        fileWord == other.fileWord && lineNumber == other.lineNumber && labelWord == other.labelWord
    }
}

/// A static string kept in one word: its address, or — for a literal of one scalar, which has none — the scalar with
/// the top bit set.
private enum _Text {
    static let scalarBit: UInt = 1 << (UInt.bitWidth - 1)

    @inline(__always)
    static func word(_ string: StaticString) -> (UInt, UInt16) {
        guard string.hasPointerRepresentation else {
            return (UInt(string.unicodeScalar.value) | scalarBit, 0)
        }
        return (UInt(bitPattern: string.utf8Start), UInt16(truncatingIfNeeded: min(string.utf8CodeUnitCount, 0xFFFF)))
    }

    static func decode(_ word: UInt, _ count: UInt16) -> String {
        if word & scalarBit != 0 {
            return Unicode.Scalar(UInt32(truncatingIfNeeded: word & ~scalarBit)).map { String(Character($0)) } ?? ""
        }
        guard let start = UnsafeRawPointer(bitPattern: word) else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: start, count: Int(count)), as: UTF8.self)
    }
}
