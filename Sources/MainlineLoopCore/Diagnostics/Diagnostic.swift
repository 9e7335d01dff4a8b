/// One report of misuse: which rule was broken, what happened, and where it was reported from.
///
/// `Diagnostic` is a value type; all operations on it are thread-safe.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The rule that was broken.
    public var kind: DiagnosticKind
    /// What happened and how to fix it, in words.
    public var message: String
    /// The file (`#fileID`) of the code that reported it.
    public var file: String
    /// The line of the code that reported it.
    public var line: UInt

    /// Creates a diagnostic.
    public init(kind: DiagnosticKind, message: String, file: String = "", line: UInt = 0) {
        self.kind = kind
        self.message = message
        self.file = file
        self.line = line
    }

    /// `Mainline misuse [kind]: message`: what the default handler traps or logs with.
    public var description: String {
        "Mainline misuse [\(kind)]: \(message)"
    }
}
