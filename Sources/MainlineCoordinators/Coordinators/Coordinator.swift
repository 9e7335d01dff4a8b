import MainlineLoop

/// A flow with a typed output — a sign-up, an order, a job's sub-steps — that finishes exactly once, by completing
/// with its output or by being cancelled.
///
/// Must be used on the main actor.
///
/// ```swift
/// final class SignUpCoordinator: Coordinator<Account> {
///     override func start() { show(Screen("email", owner: self)) }
///     func emailEntered(_ email: String) { complete(with: Account(email: email)) }
/// }
///
/// let signUp = SignUpCoordinator(completed: { account in welcome(account) }, cancelled: { showGoodbye() })
/// signUp.start(presentation: .push(stack))
/// ```
///
/// Rules (LittleJohn, FuturedKit):
/// - It finishes **once**: the first of ``complete(with:)`` and ``cancel()`` wins; its handler runs, and the
///   other handler never does. (**Mainline**: `cancelled` never runs after `completed`; upstream ran it on release
///   regardless.) Completing again is misuse (`coordinatorAlreadyFinished`); cancelling again does nothing.
/// - **Released with its screens**: its ``Screen``s hold it. When the last one leaves its container — popped,
///   dismissed, removed from tabs — and nothing else holds the coordinator, it is released, and if it had not
///   finished, `cancelled` runs then, once.
/// - Children started with ``startChild(_:presentation:)`` know their ``parent``; like any coordinator, they live
///   as long as their screens.
@MainActor
open class Coordinator<Output>: AnyCoordinator, _InspectedCoordinator {
    /// How it finished; `nil` while it runs.
    public private(set) var result: CoordinatorResult<Output>?
    /// The coordinator that started this one with ``startChild(_:presentation:)``.
    public private(set) weak var parent: AnyCoordinator?
    /// Where ``show(_:)`` puts screens; set by ``start(presentation:)``.
    public private(set) var presentation: Presentation?

    private var onCompleted: (@MainActor (Output) -> Void)?
    private var onCancelled: (@MainActor () -> Void)?
    /// What an inspector (`LoopInspector`) reads of this coordinator on its own thread; `nil` unless an inspector had
    /// been started when the coordinator was made.
    nonisolated let inspection: _CoordinatorMirror?

    /// Creates a coordinator.
    ///
    /// - Parameters:
    ///   - completed: Runs once with the output, if it completes.
    ///   - cancelled: Runs once if it is cancelled or released before finishing.
    public init(
        completed: @escaping @MainActor (Output) -> Void = { _ in },
        cancelled: @escaping @MainActor () -> Void = {}
    ) {
        self.onCompleted = completed
        self.onCancelled = cancelled
        self.inspection = _CoordinatorMirror.make()
        inspection?.attach(to: self)
    }

    isolated deinit {
        finish(.cancelled)
    }

    /// Whether it has completed or been cancelled.
    public var isFinished: Bool { result != nil }

    /// Starts the flow, showing screens with `presentation`.
    ///
    /// - Parameter presentation: Where ``show(_:)`` puts screens.
    public func start(presentation: Presentation) {
        self.presentation = presentation
        inspection?.presents(presentation.inspectionName, in: presentation.inspectedContainer)
        start()
    }

    /// Override to show the first screen (with ``show(_:)``) or hand off to a child. The default does nothing.
    open func start() {}

    /// Shows `screen` where this coordinator presents: pushed, presented modally, or added as a tab.
    ///
    /// - Parameter screen: The screen; make it with `owner: self` so that it keeps this coordinator alive.
    public func show(_ screen: Screen) {
        presentation?.show(screen)
    }

    /// Starts `child` as a child of this coordinator, showing its screens with `presentation`.
    ///
    /// - Parameters:
    ///   - child: The child; it lives as long as its screens (or whatever else holds it).
    ///   - presentation: Where the child shows its screens.
    public func startChild<ChildOutput>(_ child: Coordinator<ChildOutput>, presentation: Presentation) {
        child.parent = self
        child.inspection?.adopted(by: inspection, type: String(describing: type(of: self)))
        child.start(presentation: presentation)
    }

    /// Finishes without running a handler: for a coordinator that was built and never started.
    func discardSilently() {
        guard result == nil else { return }
        result = .cancelled
        onCompleted = nil
        onCancelled = nil
        inspection?.finished("cancelled")
    }

    /// Records `parent` (a route sets it before starting the chain).
    func adopt(parent: AnyCoordinator?) {
        self.parent = parent
        inspection?.adopted(
            by: (parent as? _InspectedCoordinator)?.inspection,
            type: parent.map { String(describing: type(of: $0)) }
        )
    }

    /// Completes the flow with `output`: `completed` runs, once. Misuse after the flow finished (reported, ignored).
    ///
    /// - Parameter output: The flow's result.
    public func complete(with output: Output) {
        guard !isFinished else {
            Diagnostics.report(
                .coordinatorAlreadyFinished,
                "\(type(of: self)) was completed after it had already finished (\(result.map { "\($0)" } ?? "")). A coordinator finishes once; ignoring the second result."
            )
            return
        }
        finish(.completed(output))
    }

    /// Cancels the flow if it has not finished: `cancelled` runs, once. Idempotent.
    public func cancel() {
        finish(.cancelled)
    }

    private func finish(_ outcome: CoordinatorResult<Output>) {
        guard result == nil else { return }
        result = outcome
        if let inspection {
            switch outcome {
            case .completed: inspection.finished("completed")
            case .cancelled: inspection.finished("cancelled")
            }
        }
        let completed = onCompleted
        let cancelled = onCancelled
        onCompleted = nil
        onCancelled = nil
        switch outcome {
        case .completed(let output): completed?(output)
        case .cancelled: cancelled?()
        }
    }
}

/// A coordinator whose mirror an inspector reads: how a child finds its parent's mirror through `AnyCoordinator`.
@MainActor
protocol _InspectedCoordinator: AnyObject {
    /// The mirror, if an inspector had been started when the coordinator was made.
    nonisolated var inspection: _CoordinatorMirror? { get }
}
