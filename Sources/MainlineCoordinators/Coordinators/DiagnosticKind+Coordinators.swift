import MainlineLoop

extension DiagnosticKind {
    /// `pop()` was called on a navigation stack with nothing above its root. Nothing happened; it returned `false`.
    public static let popEmptyStack = DiagnosticKind(rawValue: "pop-empty-stack")

    /// `pop(to:)` was given a screen that is not on the stack. Nothing happened; it returned `false`.
    public static let popToMissingScreen = DiagnosticKind(rawValue: "pop-to-missing-screen")

    /// `complete(with:)` was called on a coordinator that had already finished. The second result was ignored.
    public static let coordinatorAlreadyFinished = DiagnosticKind(rawValue: "coordinator-already-finished")
}
