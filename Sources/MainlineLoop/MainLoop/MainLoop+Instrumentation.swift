import MainlineLoopCore

extension MainLoop {
    /// Starts reporting the loop's metrics (and, if configured, watching it for stalls), or with `nil` stops.
    ///
    /// Must be called on the main actor. Replaces any instrumentation installed before (stopping its watchdog).
    /// Ignored once the loop has stopped; stopping the loop reports the last iteration and stops the watchdog.
    ///
    /// ```swift
    /// MainLoop.main.instrument(
    ///     LoopInstrumentation(dimensions: [("service", "quotes")], watchdog: LoopWatchdog(threshold: .milliseconds(100)))
    /// )
    /// ```
    ///
    /// - Parameter instrumentation: Where metrics and stall reports go; see `LoopInstrumentation` for the metrics.
    @MainActor
    public func instrument(_ instrumentation: LoopInstrumentation?) {
        core.instrument(instrumentation, watchesMainActor: true)
    }
}
