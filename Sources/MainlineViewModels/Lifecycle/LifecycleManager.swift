import MainlineLoop
import MainlineObservables

/// Binds a view model to a host — a client connection, a terminal screen, a job: the host's appear and disappear
/// drive the view model's resume and pause, and ``unbind()`` clears it.
///
/// Must be used on the main actor.
///
/// ```swift
/// let manager = LifecycleManager(viewModel: SessionViewModel(), host: connection) { viewModel in
///     [viewModel.outgoing.observe { connection.write($0) }]   // disposed on disappear
/// }
/// connection.onWritable { manager.hostDidAppear() }
/// connection.onBackpressure { manager.hostDidDisappear() }
/// connection.onClose { manager.unbind() }
/// ```
///
/// - ``hostDidAppear()`` resumes the view model, subscribes its lifecycle-subscribable dependencies to the host,
///   then calls `onLifecycle`; the disposables it returns live for this resumed span.
/// - ``hostDidDisappear()`` disposes them, unsubscribes the dependencies, and pauses the view model.
/// - ``unbind()`` does what disappearing does if needed, then clears the view model, once.
@MainActor
public final class LifecycleManager<ViewModel: BaseViewModel> {
    /// The view model.
    public let viewModel: ViewModel
    private weak var host: AnyObject?
    private let onLifecycle: @MainActor (ViewModel) -> [Disposable]
    private var span: [Disposable] = []
    private var subscribed: [LifecycleSubscribable] = []

    /// Whether the host is visible now.
    public private(set) var isHostVisible = false
    /// Whether ``unbind()`` was called.
    public private(set) var isUnbound = false

    /// Binds `viewModel` to `host`.
    ///
    /// - Parameters:
    ///   - viewModel: The view model; the manager clears it on ``unbind()``.
    ///   - host: What shows the view model; held weakly and handed to lifecycle-subscribable dependencies.
    ///   - onLifecycle: Called on each appear; returns what to dispose on the next disappear.
    public init(
        viewModel: ViewModel,
        host: AnyObject,
        onLifecycle: @escaping @MainActor (ViewModel) -> [Disposable] = { _ in [] }
    ) {
        self.viewModel = viewModel
        self.host = host
        self.onLifecycle = onLifecycle
    }

    /// The host became visible. Does nothing if it already was, or after ``unbind()``.
    public func hostDidAppear() {
        guard !isHostVisible && !isUnbound else { return }
        isHostVisible = true
        viewModel.didResume()
        if let host, let dependent = viewModel as? LifecycleSubscribableViewModel {
            subscribed = dependent.lifecycleSubscribables
            for dependency in subscribed { dependency.subscribe(host) }
        }
        span = onLifecycle(viewModel)
    }

    /// The host went away for now. Does nothing unless it was visible.
    public func hostDidDisappear() {
        guard isHostVisible else { return }
        isHostVisible = false
        for disposable in span { disposable.dispose() }
        span = []
        for dependency in subscribed { dependency.unsubscribe() }
        subscribed = []
        viewModel.didPause()
    }

    /// Ends the binding: disappears if visible, then clears the view model. Idempotent.
    public func unbind() {
        guard !isUnbound else { return }
        hostDidDisappear()
        isUnbound = true
        viewModel.clear()
    }
}
