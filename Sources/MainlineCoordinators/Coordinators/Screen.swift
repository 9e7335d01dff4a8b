/// Something a host shows — a terminal view, a client session's current state, a step in a job — and the
/// coordinator that put it there.
///
/// Must be used on the main actor.
///
/// A screen holds its coordinator **strongly**: a coordinator lives as long as one of its screens is in a container
/// (a ``NavigationStack``, ``Tabs`` or a ``ModalSlot``), or something else holds it. When its last screen leaves and
/// nothing else holds it, the coordinator is released, and cancelled if it had not finished (see ``Coordinator``).
///
/// Subclass it to carry what the host needs to render, or use it as is with a ``name``.
@MainActor
open class Screen: Identifiable {
    /// What the screen is called, for hosts and logs.
    public let name: String
    /// The coordinator that owns the screen; kept alive by it.
    public let owner: AnyCoordinator?

    /// Creates a screen.
    ///
    /// - Parameters:
    ///   - name: What the screen is called.
    ///   - owner: The coordinator that shows it, kept alive while the screen is in a container.
    public init(_ name: String, owner: AnyCoordinator? = nil) {
        self.name = name
        self.owner = owner
    }

    /// The screen's identity: screens are compared by instance.
    public nonisolated var id: ObjectIdentifier { ObjectIdentifier(self) }
}
