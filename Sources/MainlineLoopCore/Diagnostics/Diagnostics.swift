import Logging

/// Where Mainline reports misuse: the one place every layer sends "you used this wrongly".
///
/// All operations on `Diagnostics` are thread-safe.
///
/// Misuse is a bug in the calling code that Mainline can survive: adding an observer twice, a repeating timer
/// with a zero interval, moving a test clock backwards. Each layer reports such cases here with a
/// ``DiagnosticKind`` and a message that names the rule and the fix, then carries on with the documented release
/// behaviour (upstream's, where a seed library had one). What happens to the report is up to the handler:
///
/// - The **default handler** traps with the message in debug builds of Mainline (as upstream's assertions do),
///   and in release builds logs it at `error` level through swift-log (label `mainline.diagnostics`) and returns.
/// - ``setHandler(_:)`` replaces it for the whole process (a service may count or forward reports).
/// - ``withHandler(_:operation:)-(_,()->R)`` replaces it for the current task only, which is how tests record reports
///   without seeing each other's. `MainlineTesting`'s `DiagnosticsRecorder` wraps this.
///
/// Bad input from outside the process is not misuse: it throws a typed error instead.
///
/// ```swift
/// Diagnostics.setHandler { diagnostic in
///     logger.warning("\(diagnostic)")
///     misuseCounter.increment()
/// }
/// ```
public enum Diagnostics {
    /// A function that receives every report. Called synchronously on the reporting thread.
    public typealias Handler = @Sendable (Diagnostic) -> Void

    /// Reports misuse to the current handler.
    ///
    /// The caller continues with its release behaviour after this returns (it returns unless the handler traps).
    ///
    /// - Parameters:
    ///   - kind: The rule that was broken.
    ///   - message: What happened and how to fix it. Evaluated only once, when a handler runs.
    ///   - file: The reporting file; leave the default.
    ///   - line: The reporting line; leave the default.
    public static func report(
        _ kind: DiagnosticKind,
        _ message: @autoclosure () -> String,
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        let diagnostic = Diagnostic(kind: kind, message: message(), file: "\(file)", line: line)
        (scopedHandler ?? globalHandler.withLock { $0 })(diagnostic)
    }

    /// Replaces the process-wide handler (used where no task-scoped handler is installed).
    ///
    /// - Parameter handler: The new handler; pass ``defaultHandler`` to restore the default.
    public static func setHandler(_ handler: @escaping Handler) {
        globalHandler.withLock { $0 = handler }
    }

    /// Runs `operation` with `handler` receiving every report made in the current task (and tasks it creates).
    ///
    /// Reports made on other threads or tasks still go to the process-wide handler.
    ///
    /// - Parameters:
    ///   - handler: The handler for the duration of `operation`.
    ///   - operation: The code to run.
    /// - Returns: What `operation` returned.
    public static func withHandler<R>(_ handler: @escaping Handler, operation: () throws -> R) rethrows -> R {
        try $scopedHandler.withValue(handler, operation: operation)
    }

    /// Runs the asynchronous `operation` with `handler` receiving every report made in the current task.
    ///
    /// - Parameters:
    ///   - handler: The handler for the duration of `operation`.
    ///   - operation: The code to run.
    ///   - isolation: The actor `operation` runs on; leave the default (the caller's).
    /// - Returns: What `operation` returned.
    public static func withHandler<R>(
        _ handler: @escaping Handler,
        operation: () async throws -> R,
        isolation: isolated (any Actor)? = #isolation
    ) async rethrows -> R {
        try await $scopedHandler.withValue(handler, operation: operation, isolation: isolation)
    }

    /// The handler Mainline starts with: traps in debug builds of Mainline, logs and returns in release builds.
    public static let defaultHandler: Handler = { diagnostic in
        if trapsByDefault {
            fatalError("\(diagnostic) (reported at \(diagnostic.file):\(diagnostic.line))")
        }
        logger.error(
            "\(diagnostic)",
            metadata: ["kind": "\(diagnostic.kind)", "reported-at": "\(diagnostic.file):\(diagnostic.line)"]
        )
    }

    /// Whether the default handler traps: `true` in debug builds of Mainline, `false` in release builds.
    public static var trapsByDefault: Bool {
        #if DEBUG
        true
        #else
        false
        #endif
    }

    @TaskLocal private static var scopedHandler: Handler?
    private static let globalHandler = _Locked<Handler>(defaultHandler)
    private static let logger = Logger(label: "mainline.diagnostics")
}
