/// The rule a ``Diagnostic`` says was broken, as a stable identifier tests and log queries can match on.
///
/// Each layer declares the kinds it reports as static members in an extension, next to the code that reports
/// them, for example `extension DiagnosticKind { public static let observerAddedTwice = … }`.
///
/// `DiagnosticKind` is a value type; all operations on it are thread-safe.
public struct DiagnosticKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The identifier, in kebab case (`"repeating-timer-interval"`).
    public var rawValue: String

    /// Creates a kind with the given identifier.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The identifier, as logs and test failures show it.
    public var description: String { rawValue }
}

extension DiagnosticKind {
    /// A repeating timer was asked for with an interval that is not positive; it was clamped to one nanosecond.
    public static let repeatingTimerInterval = DiagnosticKind(rawValue: "repeating-timer-interval")

    /// A settle notification was given a negative dependency height; it was clamped to zero.
    public static let negativeSettleHeight = DiagnosticKind(rawValue: "negative-settle-height")

    /// `run()` was called on a loop that has already stopped; it returned at once.
    public static let runAfterStop = DiagnosticKind(rawValue: "run-after-stop")

    /// `TestLoop.advance(to:)` was asked to move virtual time backwards; time stayed where it was.
    public static let timeTravel = DiagnosticKind(rawValue: "time-travel")

    /// A `TestLoop` stepping call (`runUntilIdle()`, `advance`, `run(until:)`) gave up because the loop's own callbacks
    /// left work due on every one of its iterations — a job that posts itself, a settle notification that requests
    /// itself, a timer re-armed at the current time: a livelock in the code under test. Work arriving from other
    /// threads or tasks is never reported as this.
    public static let loopNeverIdle = DiagnosticKind(rawValue: "loop-never-idle")

    /// `onShutdown(_:)` was called on a `Loop` that does not implement it (the protocol's default): the hook will never
    /// run. A `BoundedMailbox` with `.suspend` calls it at `init`, so creating one on such a loop reports this.
    public static let loopWithoutShutdownHooks = DiagnosticKind(rawValue: "loop-without-shutdown-hooks")
}
