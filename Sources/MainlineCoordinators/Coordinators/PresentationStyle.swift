/// How a modal screen is presented; hosts decide what each looks like (a dialog box, a full-screen view, a
/// prompt line).
///
/// `PresentationStyle` is a value type; all operations on it are thread-safe.
public enum PresentationStyle: String, Sendable, Hashable, Codable, CaseIterable {
    /// Over the current screen, which stays visible behind it.
    case sheet
    /// In place of everything else.
    case fullScreen
}

/// Where a coordinator shows its screens.
///
/// Must be used on the main actor.
@MainActor
public enum Presentation {
    /// Pushed onto a navigation stack.
    case push(NavigationStack)
    /// Presented in a modal slot, with a style.
    case present(ModalSlot, style: PresentationStyle)
    /// Added to a set of tabs (and selected).
    case tab(Tabs)

    /// What an inspector calls this presentation: `push`, `present` or `tab`.
    var inspectionName: String {
        switch self {
        case .push: "push"
        case .present: "present"
        case .tab: "tab"
        }
    }

    /// The mirror of the container this presentation shows screens in, if an inspector watches it.
    var inspectedContainer: _ScreensMirror? {
        switch self {
        case .push(let stack): stack.inspection
        case .present(let slot, _): slot.inspection
        case .tab(let tabs): tabs.inspection
        }
    }

    /// Shows `screen` this way.
    func show(_ screen: Screen) {
        switch self {
        case .push(let stack): stack.navigate(to: screen)
        case .present(let slot, let style): slot.present(modal: screen, style: style)
        case .tab(let tabs): tabs.add(screen, select: true)
        }
    }
}
