import MainlineInspectorSchema
import MainlineLoop

// What a view model shows an inspector (`LoopInspector`): its type, its lifecycle state and an id, read from the
// copy of its state that each transition updates, so that the inspector never touches the main-actor object.
extension BaseViewModel {
    /// Registers a view model's state copy with the inspector's registry. Called from `init`, only when an inspector
    /// has been started.
    ///
    /// - Parameters:
    ///   - state: The copy of the view model's state, which the view model owns: the entry goes when it does.
    ///   - type: The view model's class.
    nonisolated static func registerForInspection(_ state: _Locked<LifecycleState>, type: BaseViewModel.Type) {
        let registry = _InspectionRegistry.shared
        let name = String(describing: type)
        let id = registry.makeID()
        // The copy, not the view model, is the entry: the inspector's thread may hold it for a moment, and must never
        // hold the last reference to a main-actor object.
        registry.register(state, in: .viewModels) { [weak state] _ -> ViewModelSummary? in
            guard let state else { return nil }
            let current = state.withLock { $0 }
            return ViewModelSummary(type: name, state: current.description, id: id)
        }
    }
}

extension _InspectionRegistry.Category {
    /// `BaseViewModel` and its subclasses: the inspector's `viewModels`.
    package static let viewModels = Self("viewModels")
}
