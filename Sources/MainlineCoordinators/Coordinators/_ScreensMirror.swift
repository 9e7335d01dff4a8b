import MainlineInspectorSchema
import MainlineLoop

/// What a container of screens (``NavigationStack``, ``ModalSlot``, ``Tabs``) shows an inspector (`LoopInspector`):
/// a copy of its screens, updated on the main actor at each change and read on the inspector's thread.
///
/// All operations on `_ScreensMirror` are thread-safe. A container makes one only when an inspector has been started
/// (``make(for:)``); otherwise it has none and its changes cost nothing more.
final class _ScreensMirror: @unchecked Sendable {
    // @unchecked Sendable: `screens` and `details` are read and written only while `lock` is held; the rest is
    // constant.

    /// One screen, as the inspector shows it.
    struct Entry: Sendable {
        /// The screen's name.
        var name: String
        /// The coordinator that owns it, to tell its screens apart from others' (never dereferenced).
        var owner: ObjectIdentifier?
        /// The owner's type, if it has one.
        var ownerType: String?

        /// `name`, or `name (OwnerType)`.
        var text: String { ownerType.map { "\(name) (\($0))" } ?? name }
    }

    let type: String
    let id: Int
    private let lock = _Lock()
    private var screens: [Entry] = []
    private var details = Details()

    /// What a container shows beside its screens: a modal slot's `style`, tabs' `selected`.
    ///
    /// `Details` is a value type; all operations on it are thread-safe.
    struct Details: Sendable {
        /// A modal slot's presentation style, while it presents.
        var style: String?
        /// The selected tab's name.
        var selected: String?
    }

    private init(type: String, id: Int) {
        self.type = type
        self.id = id
    }

    /// A mirror registered with the inspector's registry, or `nil` (at the cost of one atomic load) when no inspector
    /// has been started.
    ///
    /// - Parameter container: The container's type, for the entry's `type`.
    static func make(for container: Any.Type) -> _ScreensMirror? {
        let registry = _InspectionRegistry.shared
        guard registry.isActive else { return nil }
        let mirror = _ScreensMirror(type: String(describing: container), id: registry.makeID())
        registry.register(mirror, in: .coordinators) { [weak mirror] _ in mirror?.description }
        return mirror
    }

    /// Copies `screens` (and the container's `details`, such as the selected tab). On the main actor, where screens
    /// live.
    @MainActor
    func update(_ screens: [Screen], details: Details = Details()) {
        let entries = screens.map { screen in
            Entry(
                name: screen.name,
                owner: screen.owner.map { ObjectIdentifier($0) },
                ownerType: screen.owner.map { String(describing: Swift.type(of: $0)) }
            )
        }
        lock.withLock {
            self.screens = entries
            self.details = details
        }
    }

    /// The names of the screens that `owner` put here, bottom first.
    func screens(ownedBy owner: ObjectIdentifier) -> [String] {
        lock.withLock { screens.filter { $0.owner == owner }.map(\.name) }
    }

    /// The container's entry of the snapshot document: `type`, `id`, `state` (`null`), `stack`, and its details.
    var description: CoordinatorSummary {
        let (screens, details) = lock.withLock { (self.screens, self.details) }
        return CoordinatorSummary(
            type: type,
            id: id,
            state: nil,
            stack: screens.map(\.text),
            style: details.style,
            selected: details.selected
        )
    }
}
