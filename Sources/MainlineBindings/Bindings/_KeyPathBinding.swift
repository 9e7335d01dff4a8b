import MainlineEvents
import MainlineLoop
import Observation

/// A binding of any types, as a `KeyPathBinder` stores it.
@MainActor
protocol _AnyKeyPathBinding: AnyObject {
    /// Whether its model and observer both still exist.
    var isAlive: Bool { get }
    /// Stops it for good: no later change runs the action.
    func cancel()
}

/// One binding: follows `keyPath` of `model` with Observation and runs `update` on the loop.
@MainActor
final class _KeyPathBinding<Model: AnyObject & Observable, Value, Observer: AnyObject>: _AnyKeyPathBinding {
    // Every property is protected by the main actor.
    private weak var model: Model?
    private let keyPath: KeyPath<Model, Value>
    private weak var observer: Observer?
    private let update: @MainActor (Observer, Value) -> Void
    /// Delivers a change in settle; thread-safe to schedule. `nil` once cancelled.
    private var callback: CoalescingCallback?
    /// Removes the binding from its binder when its model or observer is gone.
    private var onGone: (@MainActor () -> Void)?

    init(
        model: Model,
        keyPath: KeyPath<Model, Value>,
        observer: Observer,
        update: @escaping @MainActor (Observer, Value) -> Void
    ) {
        self.model = model
        self.keyPath = keyPath
        self.observer = observer
        self.update = update
    }

    var isAlive: Bool { model != nil && observer != nil && callback != nil }

    /// Runs the action now and starts following changes.
    func start(loop: any Loop, onGone: @escaping @MainActor () -> Void) {
        self.onGone = onGone
        callback = CoalescingCallback(loop: loop) { [weak self] in self?.deliver() }
        deliver()
    }

    func cancel() {
        callback?.cancel()
        callback = nil
        onGone = nil
    }

    /// Reads the value and re-arms tracking in one step (no change can slip between them), then runs the action.
    private func deliver() {
        guard let callback else { return }
        guard let model, let observer else {
            let gone = onGone
            cancel()
            gone?()
            return
        }
        let value = withObservationTracking {
            model[keyPath: keyPath]
        } onChange: {
            // Any thread: the writer's. `schedule()` is thread-safe and coalesces until settle.
            callback.schedule()
        }
        update(observer, value)
    }
}
