import MainlineLoopCore

extension MainLoop {
    /// Whether work posted or scheduled on the loop runs with the caller's `ServiceContext` current: the switch that
    /// lets a trace continue on the loop.
    ///
    /// Thread-safe; takes effect for the posts and timers requested after the change. Off by default.
    ///
    /// When on, ``post(_:fileID:line:)``, ``tryPost(_:fileID:line:)``, ``post(label:fileID:line:_:)``, ``schedule(after:fileID:line:_:)``,
    /// ``scheduleRepeating(every:fileID:line:_:)`` and their labelled forms read `ServiceContext.current` (from
    /// swift-distributed-tracing's `ServiceContextModule`) where they are called, and the body runs inside
    /// `ServiceContext.withValue(context) { … }`. A timer scheduled from such a body carries the context on, so a trace
    /// started by a request handler continues through the work it hands to the loop:
    ///
    /// ```swift
    /// MainLoop.main.propagatesServiceContext = true   // once, at start-up
    ///
    /// // In a request handler, with the request's span current:
    /// MainLoop.main.post {
    ///     // ServiceContext.current is the handler's context: spans started here are its children.
    ///     MainLoop.main.schedule(after: .seconds(1)) {
    ///         // …and here as well.
    ///     }
    /// }
    /// ```
    ///
    /// - Complexity: Off, a post costs one relaxed load of a flag more, and nothing else: it reads no task-local and
    ///   allocates nothing. On, a post reads a task-local (no measurable cost with no context current) and, only when
    ///   a context is current, wraps the body: about 3× the cost of a post and 3 allocations (measured). That is why
    ///   this is a switch: see <doc:TracingAcrossTheLoop>.
    public var propagatesServiceContext: Bool {
        get { core.serviceContext.isOn }
        set { core.serviceContext.isOn = newValue }
    }
}
