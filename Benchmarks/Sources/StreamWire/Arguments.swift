/// `--name value` pairs from a command line, for the stream benchmark's two programs.
///
/// All operations on `Arguments` are thread-safe (it is a value).
public struct Arguments: Sendable {
    /// What was given, by name (without the dashes).
    public private(set) var values: [String: String] = [:]

    /// A misuse of the command line: what was wrong, for the usage message.
    public struct Invalid: Error, CustomStringConvertible {
        /// What was wrong.
        public var description: String

        /// A misuse described by `description`.
        ///
        /// - Parameter description: What was wrong.
        public init(description: String) {
            self.description = description
        }
    }

    /// Parses `arguments` (without the program's name).
    ///
    /// - Parameter arguments: `--name value` pairs.
    /// - Throws: ``Invalid`` for a word that is not `--name` or a name without a value.
    public init(_ arguments: some Sequence<String>) throws(Invalid) {
        var iterator = arguments.makeIterator()
        while let word = iterator.next() {
            guard word.hasPrefix("--"), word.count > 2 else { throw Invalid(description: "unexpected \(word)") }
            guard let value = iterator.next() else { throw Invalid(description: "\(word) needs a value") }
            values[String(word.dropFirst(2))] = value
        }
    }

    /// The value of `--name`, or `fallback` when it was not given.
    ///
    /// - Parameters:
    ///   - name: The option's name, without the dashes.
    ///   - fallback: The default.
    /// - Returns: The parsed value.
    /// - Throws: ``Invalid`` when the value does not parse as `T`.
    public func value<T: LosslessStringConvertible>(_ name: String, default fallback: T) throws(Invalid) -> T {
        guard let text = values[name] else { return fallback }
        guard let value = T(text) else { throw Invalid(description: "--\(name) \(text): not a \(T.self)") }
        return value
    }

    /// The value of `--name`, which must be given.
    ///
    /// - Parameter name: The option's name, without the dashes.
    /// - Returns: The parsed value.
    /// - Throws: ``Invalid`` when it is missing or does not parse as `T`.
    public func required<T: LosslessStringConvertible>(_ name: String) throws(Invalid) -> T {
        guard let text = values[name] else { throw Invalid(description: "--\(name) is required") }
        guard let value = T(text) else { throw Invalid(description: "--\(name) \(text): not a \(T.self)") }
        return value
    }
}
