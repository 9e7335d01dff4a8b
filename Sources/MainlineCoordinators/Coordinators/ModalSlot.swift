import MainlineLoop
import MainlineObservables

/// A headless slot for one modal screen, observable on the loop: a host renders it over (or instead of) what is
/// underneath, by its ``PresentationStyle``.
///
/// Must be used on the main actor.
///
/// Dismissing releases the screen (and its coordinator, if nothing else holds it: see ``Coordinator``) and calls
/// ``onModalDismiss`` with it. Presenting over a modal dismisses the old one first.
@MainActor
public final class ModalSlot {
    private let subject: InitializedSubject<Screen?>
    /// What an inspector (`LoopInspector`) reads of the slot on its own thread; `nil` unless one had been started.
    let inspection = _ScreensMirror.make(for: ModalSlot.self)

    /// The style of the modal being shown.
    public private(set) var style: PresentationStyle?

    /// Called with each modal after it was dismissed.
    public var onModalDismiss: (@MainActor (Screen) -> Void)?

    /// Creates an empty slot.
    ///
    /// - Parameter loop: The loop observers are called on.
    public init(loop: any Loop = MainLoop.main) {
        subject = subjectOf(nil, loop: loop)
    }

    /// The modal being shown, for hosts to render.
    public var modal: InitializedObservable<Screen?> { subject }

    /// Shows `screen` modally.
    ///
    /// - Parameters:
    ///   - screen: The screen.
    ///   - style: How to present it.
    public func present(modal screen: Screen, style: PresentationStyle = .sheet) {
        if subject.value != nil { dismissModal() }
        self.style = style
        subject.value = screen
        inspection?.update([screen], details: _ScreensMirror.Details(style: style.rawValue))
    }

    /// Dismisses the modal, if any, and calls ``onModalDismiss`` with it.
    ///
    /// - Returns: `false` when no modal was shown.
    @discardableResult
    public func dismissModal() -> Bool {
        guard let dismissed = subject.value else { return false }
        subject.value = nil
        style = nil
        inspection?.update([])
        onModalDismiss?(dismissed)
        return true
    }
}
