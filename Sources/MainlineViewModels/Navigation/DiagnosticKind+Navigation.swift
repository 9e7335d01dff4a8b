import MainlineLoop

extension DiagnosticKind {
    /// A `NavigationBundleSpec` was created with two rows of the same key. Rows are identified by key (that is how
    /// bundles travel as JSON), so the later row was left out of the spec.
    public static let navigationBundleDuplicateRow = DiagnosticKind(rawValue: "navigation-bundle-duplicate-row")

    /// `toBundle` was given no value (`nil`) for a row that is not optional. The bundle holds no value for that
    /// row: `get` throws `rowNotInBundle` for it, and its JSON has no such key.
    public static let navigationBundleMissingValue = DiagnosticKind(rawValue: "navigation-bundle-missing-value")

    /// A row was given a value that does not fit its type: `toBundle` was returned the value of a row of another
    /// type, or a nested-bundle row was given a bundle of another spec. The value was stored as given, as upstream
    /// Kaluga does: `get` with the row throws `wrongType`, and its JSON does not decode with the spec.
    public static let navigationBundleValueMismatch = DiagnosticKind(rawValue: "navigation-bundle-value-mismatch")

    /// `NavigationBundleSpecType.optional(_:)` was given an optional type. JSON cannot tell `.some(nil)` from `nil`,
    /// so such a row decodes `.some(nil)` as `nil`; the type was created anyway.
    public static let navigationBundleNestedOptional = DiagnosticKind(rawValue: "navigation-bundle-nested-optional")
}
