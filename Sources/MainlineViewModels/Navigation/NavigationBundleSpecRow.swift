import MainlineLoop

/// A named, typed slot of a ``NavigationBundleSpec``: the key a value is stored under and the type it has.
///
/// `NavigationBundleSpecRow` is a value type; all operations on it are thread-safe.
///
/// Declare rows once, as static constants beside the spec that lists them, and use the same constants to build
/// and to read bundles:
///
/// ```swift
/// enum Profile {
///     static let name = NavigationBundleSpecRow("name", type: .string)
///     static let age = NavigationBundleSpecRow("age", type: .int)
///     static let spec = NavigationBundleSpec("Profile", rows: name, age)
/// }
///
/// let bundle = Profile.spec.toBundle { row in
///     switch row {
///     case Profile.name: Profile.name.value("Ada")
///     case Profile.age: Profile.age.value(36)
///     default: nil
///     }
/// }
/// let age = try bundle.get(Profile.age)  // 36, an Int
/// ```
///
/// A row is identified by its key and its type, not by the spec that lists it: routes carry bundles as JSON, where
/// only the keys survive. Upstream Kaluga defaults the key to the row's class name; Mainline asks for it, so
/// renaming a Swift symbol never changes a payload. A key is the JSON object key of the row's value.
public struct NavigationBundleSpecRow<T: Sendable>: Sendable, Hashable, CustomStringConvertible {
    /// The key the row's value is stored under, in the bundle and in its JSON.
    public let key: String

    /// The type of the row's value.
    public let type: NavigationBundleSpecType<T>

    /// Creates a row.
    ///
    /// - Parameters:
    ///   - key: The key of the row's value; unique within a spec.
    ///   - type: The type of the row's value, such as `.int` or `.array(.string)`.
    public init(_ key: String, type: NavigationBundleSpecType<T>) {
        self.key = key
        self.type = type
    }

    /// Wraps `value` as this row's value, for ``NavigationBundleSpec/toBundle(_:)`` (upstream Kaluga's
    /// `convertValue`).
    ///
    /// A value that has the right Swift type but does not fit the row — a nested bundle of another spec — is
    /// reported as misuse (`DiagnosticKind.navigationBundleValueMismatch`) and wrapped anyway.
    ///
    /// - Parameter value: The value.
    /// - Returns: The value, typed by this row's type.
    public func value(_ value: T) -> NavigationBundleValue {
        if let misfit = type.misfit(value) {
            Diagnostics.report(
                .navigationBundleValueMismatch,
                "The value given to row \"\(key)\" (\(type)) does not fit it: \(misfit). Give a bundle of the spec "
                    + "the row names."
            )
        }
        return NavigationBundleValue(value, type: type)
    }

    /// `key: Type`, for messages and debugging.
    public var description: String { "\(key): \(type)" }

    /// Whether `candidate` is this row (the same key and type), so that a row constant can be a `case` pattern
    /// when switching over the rows ``NavigationBundleSpec/toBundle(_:)`` passes.
    ///
    /// - Parameters:
    ///   - pattern: The row constant in the `case`.
    ///   - candidate: The row being switched over.
    /// - Returns: Whether they are the same row.
    public static func ~= (pattern: Self, candidate: AnyNavigationBundleSpecRow) -> Bool {
        candidate.key == pattern.key && candidate.codec.kind == pattern.type.kind
    }
}
