/// The one rule of a wait on progress: give up only when what the wait watches has stood still for a long time.
///
/// Not API: `_MainlineTestSupport` serves Mainline's own tests and examples, and may change in any release.
///
/// A test that waits for a real process, server or terminal must not depend on a wall-clock rate: on a busy machine
/// (the whole suite on two cores, ThreadSanitizer, CPU burners beside it) everything is slower, and a deadline turns
/// slow into red. So the wait describes what each side is doing (events published and collected, connections, a
/// screen), hands that to ``hasStoodStill(_:)`` on every poll, and fails only when the description has not changed for
/// ``limit`` — then it says what it was.
///
/// ```swift
/// var standStill = StandStill<String>(limit: .seconds(60))
/// while !condition() {
///     let state = "published \(published); collected \(collector.count)"
///     if standStill.hasStoodStill(state) {
///         Issue.record("waited \(standStill.waited); nothing moved for \(standStill.limit): \(state)")
///         break
///     }
///     try await Task.sleep(for: .milliseconds(10))  // or whatever paces the polling
/// }
/// ```
///
/// A value type: use it from the task that waits.
public struct StandStill<State: Equatable> {
    /// How long the watched state may stay the same before ``hasStoodStill(_:)`` says so.
    public let limit: Duration
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var lastChange: ContinuousClock.Instant
    private var last: State?

    /// Starts watching now.
    ///
    /// - Parameter limit: How long the state may stay the same.
    public init(limit: Duration) {
        self.limit = limit
        started = clock.now
        lastChange = started
    }

    /// Notes `state` as it is now; returns whether it has been the same for ``limit`` or longer.
    ///
    /// - Parameter state: A description of everything the wait can see moving.
    /// - Returns: `true` when the wait should give up.
    public mutating func hasStoodStill(_ state: State) -> Bool {
        let now = clock.now
        if state != last {
            last = state
            lastChange = now
            return false
        }
        return now - lastChange >= limit
    }

    /// How long the wait has lasted so far.
    public var waited: Duration { clock.now - started }
}
