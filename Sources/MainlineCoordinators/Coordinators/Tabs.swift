import MainlineLoop
import MainlineObservables

/// Headless tabs: a list of screens and the selected one, observable on the loop.
///
/// Must be used on the main actor.
///
/// Removing a tab releases its screen (and its coordinator, if nothing else holds it: see ``Coordinator``).
@MainActor
public final class Tabs {
    private let tabsSubject: InitializedSubject<[Screen]>
    private let selectedSubject: InitializedSubject<Screen?>
    /// What an inspector (`LoopInspector`) reads of the tabs on its own thread; `nil` unless one had been started.
    let inspection = _ScreensMirror.make(for: Tabs.self)

    /// Creates tabs.
    ///
    /// - Parameters:
    ///   - tabs: The first tabs; the first one is selected.
    ///   - loop: The loop observers are called on.
    public init(_ tabs: [Screen] = [], loop: any Loop = MainLoop.main) {
        tabsSubject = subjectOf(tabs, loop: loop)
        selectedSubject = subjectOf(tabs.first, loop: loop)
        updateInspection()
    }

    /// The tabs, in order.
    public var tabs: InitializedObservable<[Screen]> { tabsSubject }

    /// The selected tab.
    public var selectedTab: InitializedObservable<Screen?> { selectedSubject }

    /// Adds `screen` as the last tab.
    ///
    /// - Parameters:
    ///   - screen: The tab's screen.
    ///   - select: Whether to select it.
    public func add(_ screen: Screen, select: Bool = false) {
        tabsSubject.value.append(screen)
        if select || selectedSubject.value == nil { selectedSubject.value = screen }
        updateInspection()
    }

    /// Selects `screen`.
    ///
    /// - Parameter screen: One of the tabs.
    /// - Returns: `false` when `screen` is not a tab (nothing changes).
    @discardableResult
    public func select(_ screen: Screen) -> Bool {
        guard tabsSubject.value.contains(where: { $0 === screen }) else { return false }
        if selectedSubject.value !== screen { selectedSubject.value = screen }
        updateInspection()
        return true
    }

    /// Removes the tab showing `screen`; if it was selected, the first remaining tab is selected.
    ///
    /// - Parameter screen: One of the tabs.
    /// - Returns: `false` when `screen` is not a tab.
    @discardableResult
    public func remove(_ screen: Screen) -> Bool {
        guard let index = tabsSubject.value.firstIndex(where: { $0 === screen }) else { return false }
        tabsSubject.value.remove(at: index)
        if selectedSubject.value === screen { selectedSubject.value = tabsSubject.value.first }
        updateInspection()
        return true
    }

    private func updateInspection() {
        inspection?.update(tabsSubject.value, details: _ScreensMirror.Details(selected: selectedSubject.value?.name))
    }
}
