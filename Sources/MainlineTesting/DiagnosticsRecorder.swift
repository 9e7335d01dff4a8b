import MainlineLoopCore

/// Records the `Diagnostics` reports made while a test's code runs, instead of trapping.
///
/// All operations on `DiagnosticsRecorder` are thread-safe.
///
/// The recorder installs itself for the current task only (`Diagnostics.withHandler(_:operation:)`),
/// so tests running in parallel never see each other's reports. Reports made on other threads (for example by a
/// real `MainLoop`'s callbacks) still go to the process-wide handler.
///
/// ```swift
/// @MainActor @Test func zeroIntervalIsReportedAndClamped() {
///     let loop = TestLoop()
///     let diagnostics = DiagnosticsRecorder()
///     diagnostics.record { loop.scheduleRepeating(every: .zero) { _ in } }
///     #expect(diagnostics.kinds == [.repeatingTimerInterval])
/// }
/// ```
public final class DiagnosticsRecorder: Sendable {
    private let storage = _Locked<[Diagnostic]>([])

    /// Creates an empty recorder.
    public init() {}

    /// Everything recorded so far, in order.
    public var diagnostics: [Diagnostic] { storage.withLock { $0 } }

    /// The kinds of everything recorded so far, in order.
    public var kinds: [DiagnosticKind] { diagnostics.map(\.kind) }

    /// A handler that records into this recorder, for `Diagnostics.setHandler(_:)` when a test must capture
    /// reports made on other threads.
    public var handler: Diagnostics.Handler {
        { [storage] diagnostic in storage.withLock { $0.append(diagnostic) } }
    }

    /// Runs `body`, recording every report it makes in the current task.
    ///
    /// - Returns: What `body` returned.
    @discardableResult
    public func record<R>(_ body: () throws -> R) rethrows -> R {
        try Diagnostics.withHandler(handler, operation: body)
    }

    /// Runs the asynchronous `body`, recording every report it makes in the current task.
    ///
    /// - Parameters:
    ///   - isolation: The actor `body` runs on; leave the default (the caller's).
    ///   - body: The code to run.
    /// - Returns: What `body` returned.
    @discardableResult
    public func record<R>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> R
    ) async rethrows -> R {
        try await Diagnostics.withHandler(handler, operation: body, isolation: isolation)
    }

    /// Forgets everything recorded so far.
    public func reset() {
        storage.withLock { $0.removeAll() }
    }
}
