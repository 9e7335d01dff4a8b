import MainlineLoop

extension DiagnosticKind {
    /// A data source was added to a parent while it still had one. It was not added.
    public static let dataSourceHasParent = DiagnosticKind(rawValue: "data-source-has-parent")

    /// A parent data source was given a child index outside its children. Nothing changed.
    public static let dataSourceChildIndexOutOfRange = DiagnosticKind(rawValue: "data-source-child-index-out-of-range")

    /// A child with more than one section was added to a `MultiRowDataSource`, which shows section 0 of each child
    /// only. It was added; its other sections are not shown.
    public static let multiRowChildHasSections = DiagnosticKind(rawValue: "multi-row-child-has-sections")

    /// An `ArrayModel` mutation named an index outside the array. Nothing changed.
    public static let arrayModelIndexOutOfRange = DiagnosticKind(rawValue: "array-model-index-out-of-range")
}
