import MainlineInspectorSchema
import MainlineLoop

/// What a ``Coordinator`` shows an inspector (`LoopInspector`): its type, whether it runs, its parent, where it
/// presents, and its stack — its screens in its container, then its running children — from copies the coordinator
/// updates on the main actor, read on the inspector's thread.
///
/// All operations on `_CoordinatorMirror` are thread-safe. A coordinator makes one only when an inspector has been
/// started (``make()``); otherwise it has none and its transitions cost nothing more.
final class _CoordinatorMirror: @unchecked Sendable {
    // @unchecked Sendable: every `var` is read and written only while `lock` is held; `id` is constant.

    let id: Int
    private let lock = _Lock()
    private var type = "Coordinator"
    /// The coordinator itself, to find its screens in its container (never dereferenced).
    private var identity: ObjectIdentifier?
    private var state = "running"
    private var parentID: Int?
    private var parentType: String?
    private var presentation: String?
    private weak var container: _ScreensMirror?
    private var children: [Weak] = []

    private struct Weak {
        weak var mirror: _CoordinatorMirror?
    }

    private init(id: Int) {
        self.id = id
    }

    /// A mirror, or `nil` (at the cost of one atomic load) when no inspector has been started. Registered once the
    /// coordinator can say what it is (``attach(to:)``).
    static func make() -> _CoordinatorMirror? {
        let registry = _InspectionRegistry.shared
        guard registry.isActive else { return nil }
        return _CoordinatorMirror(id: registry.makeID())
    }

    /// Names the coordinator and registers the mirror, at the end of its `init`.
    @MainActor
    func attach(to coordinator: AnyCoordinator) {
        lock.withLock {
            type = String(describing: Swift.type(of: coordinator))
            identity = ObjectIdentifier(coordinator)
        }
        _InspectionRegistry.shared.register(self, in: .coordinators) { [weak self] _ in self?.description }
    }

    /// The coordinator finished: `completed` or `cancelled`.
    func finished(_ outcome: String) {
        lock.withLock { state = outcome }
    }

    /// The coordinator presents with `presentation` (`push`, `present`, `tab`), into the container `container`.
    func presents(_ presentation: String, in container: _ScreensMirror?) {
        lock.withLock {
            self.presentation = presentation
            self.container = container
        }
    }

    /// The coordinator's parent is `parent` (of `type`), or none.
    func adopted(by parent: _CoordinatorMirror?, type: String?) {
        lock.withLock {
            parentID = parent?.id
            parentType = type
        }
        parent?.lock.withLock {
            parent?.children.removeAll { $0.mirror == nil }
            parent?.children.append(Weak(mirror: self))
        }
    }

    /// What the coordinator is now, copied under the lock.
    private struct Copy {
        var type: String
        var identity: ObjectIdentifier?
        var state: String
        var parentID: Int?
        var parentType: String?
        var presentation: String?
        var container: _ScreensMirror?
        var children: [_CoordinatorMirror]
    }

    /// The coordinator's entry of the snapshot document: `type`, `id`, `state`, `parent`, `parentType`,
    /// `presentation`, `stack`.
    var description: CoordinatorSummary {
        let copy = lock.withLock {
            Copy(
                type: type,
                identity: identity,
                state: state,
                parentID: parentID,
                parentType: parentType,
                presentation: presentation,
                container: container,
                children: children.compactMap { $0.mirror }
            )
        }
        // Each lock alone, never one inside another: the container's, then each child's.
        var stack: [String] = []
        if let identity = copy.identity, let container = copy.container {
            stack += container.screens(ownedBy: identity)
        }
        for child in copy.children {
            let (type, state) = child.lock.withLock { (child.type, child.state) }
            if state == "running" { stack.append("\(type) (child)") }
        }
        return CoordinatorSummary(
            type: copy.type,
            id: id,
            state: copy.state,
            parent: copy.parentID,
            parentType: copy.parentType,
            presentation: copy.presentation,
            stack: stack
        )
    }
}

extension _InspectionRegistry.Category {
    /// Coordinators and the containers they show screens in: the inspector's `coordinators`.
    package static let coordinators = Self("coordinators")
}
