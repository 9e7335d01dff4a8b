/// A notification delivered in a loop's settle phase: the hook the coalescing layers are built on.
///
/// Must be used on the main actor.
///
/// Each iteration of a loop ends with **settle** (DESIGN.md §2–3): after timers, posted work and I/O have run,
/// the loop delivers every pending notification, lowest dependency ``height`` first, and keeps going in
/// rounds until nothing is pending. A lazy event is a `SettleNotification` whose `deliver` notifies the
/// event's observers; a proxy over events sits one height above them, so it is delivered once, after all of
/// its sources, however many of them fired.
///
/// ```swift
/// let notification = SettleNotification(height: 0) { print("settled") }
/// loop.requestSettle(notification)   // true: pending now
/// loop.requestSettle(notification)   // false: already pending, still one delivery
/// // … the current callback returns; the loop settles and prints "settled" once.
/// ```
///
/// Rules, enforced by the loop:
/// - **Never synchronous.** ``Loop/requestSettle(_:)`` only marks the notification pending.
/// - **Once per request.** Requests while pending coalesce into the one delivery. ``isPending`` turns `false`
///   just before `deliver` runs, so a request made *during* delivery schedules one more delivery.
/// - **By height, in rounds.** Within a round, heights only increase: a request at a height above the
///   one being delivered joins the current round; one at the same or a lower height waits for the next round.
///   Within one height, a real loop delivers in request order; do not rely on it — a `TestLoop` under an exploring
///   schedule (MainlineTesting's "Finding order bugs") delivers one height's notifications in any order.
/// - **Bounded.** A loop runs at most ``LoopBudgets/settleRoundsPerIteration`` rounds per iteration; what is
///   still pending then is delivered in the next iteration, after timers and I/O had their turn, and the loop
///   does not block while anything is pending.
@MainActor
public final class SettleNotification {
    /// The dependency height: 0 for a source, one more than the highest of its sources for anything derived.
    ///
    /// Read when the notification is requested; changing it while pending takes effect at the next request.
    public var height: Int

    /// Whether a delivery is pending.
    public internal(set) var isPending = false

    // Protected by the main actor. Bumped on every request and cancel, so the settle queue can tell a live
    // entry from one that was cancelled (and perhaps requested again) after it was queued.
    package var generation: UInt64 = 0

    let deliver: @MainActor () -> Void

    /// Where the notification was created: what the flight recorder names when a delivery is slow.
    public nonisolated let site: LoopSite

    /// Creates a notification.
    ///
    /// - Parameters:
    ///   - height: The dependency height (see ``height``). Negative heights are misuse and are treated as 0.
    ///   - fileID: The caller's file, kept as the notification's ``site`` (leave the default; a type that creates
    ///     notifications for its users passes theirs).
    ///   - line: The caller's line (leave the default).
    ///   - deliver: What delivery does. Capture owners weakly: the loop holds the notification while it is
    ///     pending, and an owner that is gone by then should simply deliver nothing.
    public init(
        height: Int = 0,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        deliver: @escaping @MainActor () -> Void
    ) {
        self.height = height
        self.site = LoopSite(fileID: fileID, line: line)
        self.deliver = deliver
    }

    /// Withdraws a pending delivery. Idempotent; does nothing when nothing is pending.
    ///
    /// - Complexity: O(1); the withdrawn entry is skipped when the loop reaches it.
    public func cancel() {
        guard isPending else { return }
        isPending = false
        generation &+= 1
    }
}
