import MainlineLoop

/// A view model with a lifecycle: resumed and paused by whatever shows it, cleared once when it is done.
///
/// Must be used on the main actor, except ``post(_:)``, which any thread may call.
///
/// ```swift
/// final class ClockViewModel: BaseViewModel {
///     let time = subjectOf("")
///
///     override func onResume(_ scope: ViewModelScope) {
///         scope.tick(every: .seconds(1)) { [weak self] tick in self?.time.value = "\(tick.now)" }
///     }
/// }
/// ```
///
/// - States: `initialized → (resumed ⇄ paused)* → cleared` (``LifecycleState``).
/// - ``scope``: work for the whole life (``launch(_:)``), cancelled by ``clear()``.
/// - ``onResume(_:)`` receives a fresh **resumed scope** for each resumed span; its tasks and ticks are cancelled
///   when the view model pauses (after ``onPause()`` ran).
/// - Resuming twice without a pause does nothing (no second ``onResume(_:)``); pausing when not resumed does
///   nothing.
/// - ``clear()`` pauses first if resumed, cancels every task of both scopes, calls ``onCleared()`` exactly once,
///   and is idempotent. Launching after clear is misuse (`launchAfterScopeEnded`) and starts nothing; resuming or
///   pausing after clear is misuse (`transitionAfterClear`) and does nothing.
@MainActor
open class BaseViewModel {
    /// Where the view model is in its life.
    public private(set) var state: LifecycleState = .initialized {
        didSet { inspectedState?.withLock { $0 = state } }
    }

    /// A copy of ``state`` that an inspector (`LoopInspector`) reads on its own thread, while the loop may be busy;
    /// `nil` unless an inspector had been started when the view model was made (then a transition costs nothing more).
    private nonisolated let inspectedState: _Locked<LifecycleState>?

    /// The loop the view model lives on; ticks use its clock, and ``post(_:)`` hops into it.
    public nonisolated let loop: any Loop

    /// Work for the whole life of the view model, cancelled by ``clear()``.
    public let scope: ViewModelScope

    /// The scope of the current resumed span; `nil` unless ``state`` is `.resumed`.
    public private(set) var resumedScope: ViewModelScope?

    /// Creates a view model in the `initialized` state.
    ///
    /// - Parameter loop: The loop it lives on; the main loop unless a test passes a `TestLoop`.
    public init(loop: any Loop = MainLoop.main) {
        self.loop = loop
        self.scope = ViewModelScope(name: "a view model's lifetime scope", loop: loop)
        self.inspectedState = _InspectionRegistry.shared.isActive ? _Locked(.initialized) : nil
        if let inspectedState { Self.registerForInspection(inspectedState, type: type(of: self)) }
    }

    /// Starts `operation` in the lifetime ``scope``: it runs until it finishes or the view model is cleared.
    ///
    /// - Parameter operation: The work.
    /// - Returns: The task, or `nil` after ``clear()`` (reported as `launchAfterScopeEnded`).
    @discardableResult
    public func launch(_ operation: @escaping @MainActor () async -> Void) -> Task<Void, Never>? {
        scope.launch(operation)
    }

    // MARK: Transitions

    /// The host became visible: moves to `resumed` and calls ``onResume(_:)`` with a fresh resumed scope.
    ///
    /// Does nothing when already resumed.
    public func didResume() {
        switch state {
        case .resumed:
            return
        case .cleared:
            reportAfterClear("resume")
        case .initialized, .paused:
            state = .resumed
            let span = ViewModelScope(name: "a resumed scope", loop: loop)
            resumedScope = span
            onResume(span)
        }
    }

    /// The host went away for now: calls ``onPause()``, then cancels the resumed scope's work, and moves to
    /// `paused`.
    ///
    /// Does nothing unless resumed.
    public func didPause() {
        switch state {
        case .resumed:
            onPause()
            resumedScope?.end()
            resumedScope = nil
            state = .paused
        case .cleared:
            reportAfterClear("pause")
        case .initialized, .paused:
            return
        }
    }

    /// Finishes the view model: pauses it if resumed, cancels all its work, calls ``onCleared()``. Idempotent.
    public func clear() {
        guard state != .cleared else { return }
        if state == .resumed { didPause() }
        scope.end()
        state = .cleared
        onCleared()
    }

    /// Requests a transition from any thread: it is applied on the loop, soon, in the order requests were posted
    /// from each thread.
    ///
    /// - Parameter event: The transition.
    /// - Returns: `false` if the loop has stopped and the request will never be applied.
    @discardableResult
    public nonisolated func post(_ event: LifecycleEvent) -> Bool {
        loop.post { [weak self] in
            switch event {
            case .resume: self?.didResume()
            case .pause: self?.didPause()
            case .clear: self?.clear()
            }
        }
    }

    // MARK: Overridable

    /// Called when the view model resumes, with the scope of this resumed span. The default does nothing.
    ///
    /// - Parameter scope: Work launched into it (and ticks asked of it) is cancelled when the view model pauses.
    open func onResume(_ scope: ViewModelScope) {}

    /// Called when the view model pauses, before its resumed work is cancelled. The default does nothing.
    open func onPause() {}

    /// Called once, when the view model is cleared, after all its work was cancelled. The default does nothing.
    open func onCleared() {}

    private func reportAfterClear(_ transition: String) {
        Diagnostics.report(
            .transitionAfterClear,
            "A cleared \(type(of: self)) was asked to \(transition). A cleared view model is finished; make a new one. Ignoring the request."
        )
    }
}
