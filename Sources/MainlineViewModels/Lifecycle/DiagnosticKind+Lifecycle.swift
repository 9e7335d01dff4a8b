import MainlineLoop

extension DiagnosticKind {
    /// Work was launched into a scope that has ended (a cleared view model's, or a paused span's resumed scope).
    /// Nothing was started.
    public static let launchAfterScopeEnded = DiagnosticKind(rawValue: "launch-after-scope-ended")

    /// A view model was asked to resume or pause after it was cleared. Nothing happened.
    public static let transitionAfterClear = DiagnosticKind(rawValue: "transition-after-clear")
}
