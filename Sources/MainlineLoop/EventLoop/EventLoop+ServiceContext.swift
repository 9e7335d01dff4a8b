import MainlineLoopCore
import ServiceContextModule

extension EventLoop {
    /// Whether work posted or scheduled on the loop runs with the caller's `ServiceContext` current: the switch that
    /// lets a trace continue on the loop's thread.
    ///
    /// Thread-safe; takes effect for the posts and timers requested after the change. Off by default.
    ///
    /// When on, ``post(_:fileID:line:)``, ``tryPost(_:fileID:line:)``, ``schedule(after:fileID:line:_:)``, ``schedule(at:fileID:line:_:)`` and
    /// ``scheduleRepeating(every:fileID:line:_:)`` read `ServiceContext.current` (from swift-distributed-tracing's
    /// `ServiceContextModule`) where they are called, and the body runs inside `ServiceContext.withValue(context) { … }`
    /// — every firing, for a repeating timer. Executor jobs (actors and tasks on the loop) need no switch: a task
    /// carries its task-locals itself.
    ///
    /// ```swift
    /// let io = EventLoop(name: "io")
    /// io.propagatesServiceContext = true
    /// ServiceContext.withValue(requestContext) {
    ///     io.post { assert(ServiceContext.current != nil) }   // the request's context
    /// }
    /// ```
    ///
    /// - Complexity: Off, a post costs one relaxed load of a flag more and allocates nothing. On, a post reads a
    ///   task-local and, only when a context is current, wraps the body: a closure, and a task-local binding around
    ///   the body when it runs.
    public var propagatesServiceContext: Bool {
        get { serviceContext.isOn }
        set { serviceContext.isOn = newValue }
    }
}

extension _ServiceContextSwitch {
    /// A repeating `EventLoop` timer body that runs with the scheduler's context current at every firing, or `body`.
    @inline(__always)
    func carry(
        repeatingJob body: @escaping @Sendable (EventLoop.Scheduled) -> Void
    ) -> @Sendable (EventLoop.Scheduled) -> Void {
        guard let context = contextToCarry else { return body }
        return { task in ServiceContext.withValue(context) { body(task) } }
    }
}
