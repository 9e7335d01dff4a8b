import MainlineLoop

extension DiagnosticKind {
    /// The same (model, key path, observer) was bound twice in one `KeyPathBinder`. The second binding was ignored.
    public static let bindingAddedTwice = DiagnosticKind(rawValue: "binding-added-twice")
}
