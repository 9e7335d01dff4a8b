import MainlineEvents
import MainlineLoop
import Observation

/// Connects key paths of `@Observable` models to update actions of observers: each action runs once at bind time
/// and then once per loop iteration in which its key path changed.
///
/// Must be used on the main actor. The models may be changed from any thread (if they are thread-safe themselves):
/// the change is noticed there and the action runs on the loop.
///
/// ```swift
/// @Observable final class Profile { var name = "Ada" }
///
/// final class HeaderViewModel {
///     var title = ""
/// }
///
/// let binder = KeyPathBinder()
/// binder.bind(profile, \.name, to: header) { header, name in header.title = "Hello, \(name)" }
/// // header.title is "Hello, Ada" already.
/// profile.name = "Grace"
/// profile.name = "Lin"
/// // … the loop settles: the action runs once, with "Lin".
/// ```
///
/// - Change tracking is Swift's Observation (`withObservationTracking`), re-armed each time the action runs, as the
///   value is read — never polling. A change fires a `CoalescingCallback`, which is thread-safe and delivers in the
///   loop's settle phase, so many changes in one iteration run the action once.
/// - The observer and the model are held **weakly**: an observer freed before a delivery is never called, and a
///   binding whose observer or model is gone removes itself.
/// - Binding the same (model, key path, observer) twice is misuse (`bindingAddedTwice`): the second binding is
///   ignored and `bind` returns `false`.
/// - An action that changes the key path it follows runs once more, in a later settle round.
/// - Important: Observation reports a change as it is about to be written. A model changed on another thread must
///   finish the write before the loop reads it; a model that lives on the main actor never races.
@MainActor
public final class KeyPathBinder {
    /// The loop whose settle phase runs the actions. Thread-safe.
    public nonisolated let loop: any Loop
    /// The live bindings; protected by the main actor.
    private var bindings: [_BindingKey: any _AnyKeyPathBinding] = [:]

    /// Creates a binder with no bindings.
    ///
    /// - Parameter loop: The loop whose settle phase runs the actions; the main loop unless a test passes a
    ///   `TestLoop`.
    public init(loop: any Loop = MainLoop.main) {
        self.loop = loop
    }

    /// How many bindings are live.
    public var count: Int { bindings.count }

    /// Binds `keyPath` of `model` to `update` on `observer`: runs it now with the current value, then after each
    /// change of the key path, once per loop iteration.
    ///
    /// - Parameters:
    ///   - model: The model, held weakly.
    ///   - keyPath: The property followed.
    ///   - observer: What is updated, held weakly.
    ///   - update: The action; it receives the observer and the value.
    /// - Returns: `false` if this (model, key path, observer) was bound already (misuse, `bindingAddedTwice`).
    @discardableResult
    public func bind<Model: AnyObject & Observable, Value, Observer: AnyObject>(
        _ model: Model,
        _ keyPath: KeyPath<Model, Value>,
        to observer: Observer,
        _ update: @escaping @MainActor (Observer, Value) -> Void
    ) -> Bool {
        let key = _BindingKey(model: model, keyPath: keyPath, observer: observer)
        if let existing = bindings[key], existing.isAlive {
            Diagnostics.report(
                .bindingAddedTwice,
                "\(Model.self)'s \(keyPath) was bound to the same \(Observer.self) twice. Unbind it first (or bind it once, in one table). The second binding was ignored."
            )
            return false
        }
        bindings[key]?.cancel()
        let binding = _KeyPathBinding(model: model, keyPath: keyPath, observer: observer, update: update)
        bindings[key] = binding
        binding.start(loop: loop) { [weak self] in self?.remove(key) }
        return true
    }

    /// Ends the binding of `keyPath` of `model` to `observer`.
    ///
    /// - Parameters:
    ///   - model: The model.
    ///   - keyPath: The property.
    ///   - observer: The observer.
    /// - Returns: Whether such a binding was live.
    @discardableResult
    public func unbind<Model: AnyObject & Observable, Value, Observer: AnyObject>(
        _ model: Model,
        _ keyPath: KeyPath<Model, Value>,
        from observer: Observer
    ) -> Bool {
        remove(_BindingKey(model: model, keyPath: keyPath, observer: observer))
    }

    /// Ends every binding of `model`.
    ///
    /// - Parameter model: The model.
    public func unbindAll(from model: AnyObject) {
        for key in bindings.keys where key.model == ObjectIdentifier(model) { remove(key) }
    }

    /// Ends every binding.
    public func unbindAll() {
        for key in bindings.keys { remove(key) }
    }

    @discardableResult
    private func remove(_ key: _BindingKey) -> Bool {
        guard let binding = bindings.removeValue(forKey: key) else { return false }
        binding.cancel()
        return true
    }
}

/// What identifies a binding: the model, the key path and the observer.
struct _BindingKey: Hashable {
    let model: ObjectIdentifier
    let keyPath: AnyKeyPath
    let observer: ObjectIdentifier

    init(model: AnyObject, keyPath: AnyKeyPath, observer: AnyObject) {
        self.model = ObjectIdentifier(model)
        self.keyPath = keyPath
        self.observer = ObjectIdentifier(observer)
    }
}
