extension TestLoop {
    /// Whether work posted or scheduled on the loop runs with the caller's `ServiceContext` current, as
    /// `MainLoop.propagatesServiceContext` does on the real loop. Off by default.
    ///
    /// Thread-safe (unlike most of `TestLoop`); takes effect for the posts and timers requested after the change.
    /// When on, ``post(_:fileID:line:)``, ``tryPost(_:fileID:line:)``, ``post(label:fileID:line:_:)``, ``schedule(after:fileID:line:_:)``,
    /// ``scheduleRepeating(every:fileID:line:_:)`` and their labelled forms read `ServiceContext.current` where they are called,
    /// and the body runs inside `ServiceContext.withValue(context) { … }`.
    ///
    /// ```swift
    /// loop.propagatesServiceContext = true
    /// ServiceContext.withValue(context) {
    ///     loop.post { handle(ServiceContext.current) }   // runs with `context` current
    /// }
    /// loop.runUntilIdle()
    /// ```
    public nonisolated var propagatesServiceContext: Bool {
        get { core.serviceContext.isOn }
        set { core.serviceContext.isOn = newValue }
    }
}
