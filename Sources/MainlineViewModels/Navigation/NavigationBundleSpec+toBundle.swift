import MainlineLoop

extension NavigationBundleSpec {
    /// Builds a bundle of this spec, asking `value` for the value of each row, in order.
    ///
    /// Switch over the row and return the matching typed row's value; return `nil` to leave an optional row out (it
    /// then holds `nil`):
    ///
    /// ```swift
    /// let bundle = Checkout.spec.toBundle { row in
    ///     switch row {
    ///     case Checkout.orderID: Checkout.orderID.value(1_042)
    ///     default: nil  // coupon: none
    ///     }
    /// }
    /// ```
    ///
    /// Misuse, reported to `Diagnostics` (the bundle is built all the same):
    /// - `nil` for a row that is not optional (`DiagnosticKind.navigationBundleMissingValue`): the bundle holds
    ///   no value for it.
    /// - A value of another type than the row's (`DiagnosticKind.navigationBundleValueMismatch`): it is stored as
    ///   given, and reading it with the row throws ``NavigationBundleGetError/wrongType(row:expected:found:)``.
    ///
    /// Callable from any thread.
    ///
    /// - Parameter value: Returns the value of a row, or `nil` for none. Called once per row. If it throws, no bundle
    ///   is built and the error propagates.
    /// - Returns: A bundle of this spec.
    /// - Throws: What `value` throws.
    public func toBundle<Failure: Error>(
        _ value: (AnyNavigationBundleSpecRow) throws(Failure) -> NavigationBundleValue?
    ) throws(Failure) -> NavigationBundle {
        var values: [String: NavigationBundleValue] = [:]
        for row in rows {
            guard let rowValue = try value(row) else {
                if let absent = row.codec.absentValue {
                    values[row.key] = NavigationBundleValue(erased: absent, codec: row.codec)
                } else {
                    Diagnostics.report(
                        .navigationBundleMissingValue,
                        "toBundle of spec \"\(name)\" got no value for row \(row), which is not optional. Return "
                            + "its value (`row.value(…)`), or make the row optional."
                    )
                }
                continue
            }
            if rowValue.codec.kind != row.codec.kind {
                Diagnostics.report(
                    .navigationBundleValueMismatch,
                    "toBundle of spec \"\(name)\" got a value of type \(rowValue.typeDescription) for row \(row). Return "
                        + "the value of the row you are asked for; reading this one will throw wrongType."
                )
            }
            values[row.key] = rowValue
        }
        return NavigationBundle(spec: self, values: values)
    }
}
