import Observation

/// One row of a view model's binding table: a key path of its model and the action that shows it.
///
/// `ModelBinding` is a value type holding main-actor closures; it must be used on the main actor.
///
/// ```swift
/// final class ProfileViewModel: BaseViewModel, ModelBindable {
///     var title = ""
///     var badge = ""
///
///     static let modelBindings: [ModelBinding<ProfileViewModel, Profile>] = [
///         ModelBinding(\.name) { viewModel, name in viewModel.title = name },
///         ModelBinding(\.unread) { viewModel, unread in viewModel.badge = unread > 0 ? "\(unread)" : "" },
///     ]
/// }
/// ```
@MainActor
public struct ModelBinding<Observer: AnyObject, Model: AnyObject & Observable> {
    /// The key path the row follows.
    public let keyPath: PartialKeyPath<Model>
    private let bindRow: @MainActor (KeyPathBinder, Model, Observer) -> Bool
    private let unbindRow: @MainActor (KeyPathBinder, Model, Observer) -> Bool

    /// Creates a row binding `keyPath` to `update`.
    ///
    /// - Parameters:
    ///   - keyPath: The property of the model.
    ///   - update: The action; it receives the observer and the value.
    public init<Value>(_ keyPath: KeyPath<Model, Value>, _ update: @escaping @MainActor (Observer, Value) -> Void) {
        self.keyPath = keyPath
        bindRow = { binder, model, observer in binder.bind(model, keyPath, to: observer, update) }
        unbindRow = { binder, model, observer in binder.unbind(model, keyPath, from: observer) }
    }

    func bind(_ binder: KeyPathBinder, _ model: Model, _ observer: Observer) -> Bool {
        bindRow(binder, model, observer)
    }

    func unbind(_ binder: KeyPathBinder, _ model: Model, _ observer: Observer) -> Bool {
        unbindRow(binder, model, observer)
    }
}

/// Something — usually a view model — that shows a model through a table of key-path bindings, as upstream
/// ViewModelKit's `modelBindings`.
///
/// Must be used on the main actor.
///
/// ```swift
/// final class ProfileViewModel: BaseViewModel, ModelBindable {
///     let binder = KeyPathBinder()
///     var model: Profile? {
///         didSet { binder.rebind(self, from: oldValue, to: model) }   // upstream's setModel
///     }
///     static let modelBindings: [ModelBinding<ProfileViewModel, Profile>] = [ … ]
/// }
/// ```
@MainActor
public protocol ModelBindable: AnyObject {
    /// The model type it shows.
    associatedtype BoundModel: AnyObject & Observable

    /// The table: each key path of the model and the action that shows it.
    static var modelBindings: [ModelBinding<Self, BoundModel>] { get }
}

extension KeyPathBinder {
    /// Binds every row of `observer`'s ``ModelBindable/modelBindings`` to `model`; each action runs now.
    ///
    /// - Parameters:
    ///   - observer: The observer, held weakly.
    ///   - model: The model, held weakly.
    /// - Returns: `false` if some row was bound already (misuse, `bindingAddedTwice`; that row is not bound again).
    @discardableResult
    public func bind<Observer: ModelBindable>(_ observer: Observer, to model: Observer.BoundModel) -> Bool {
        Observer.modelBindings.reduce(true) { $1.bind(self, model, observer) && $0 }
    }

    /// Ends every binding of `observer`'s table to `model`.
    ///
    /// - Parameters:
    ///   - observer: The observer.
    ///   - model: The model.
    public func unbind<Observer: ModelBindable>(_ observer: Observer, from model: Observer.BoundModel) {
        for row in Observer.modelBindings { _ = row.unbind(self, model, observer) }
    }

    /// Moves `observer`'s table from one model to another, as upstream's `setModel`: the old model's bindings end,
    /// the new model's are made, and their actions run now.
    ///
    /// Does nothing when both are the same instance.
    ///
    /// - Parameters:
    ///   - observer: The observer.
    ///   - old: The model it showed, if any.
    ///   - new: The model it shows now, if any.
    public func rebind<Observer: ModelBindable>(
        _ observer: Observer,
        from old: Observer.BoundModel?,
        to new: Observer.BoundModel?
    ) {
        guard old !== new else { return }
        if let old { unbind(observer, from: old) }
        if let new { bind(observer, to: new) }
    }
}
