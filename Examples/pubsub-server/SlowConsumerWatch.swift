import Mainline

/// Decides when one client is a slow consumer of its queue groups, and when it keeps up again.
///
/// Must be used on the main actor (its ``ClientConnection`` owns it).
///
/// A client is a **slow consumer** once it has held a queue group's line not yet written to the kernel for the bound
/// (``bound``, `--slow-consumer-ms`) without any write of it completing: it took none of the bytes sent to it
/// meanwhile, whether it is paused or not. The clock starts when a group line is handed to a client that held none
/// unwritten, and starts again at each write that completes; its timer is an ``IdleTimer``, made at the client's
/// first group line, and firing once per bound while the client lives.
///
/// The moment a client becomes slow, ``onSlow`` runs (the connection takes its group lines back, for the group's
/// other clients), and it accepts no group message until it keeps up again: a write completes and leaves no more than
/// ``ClientConnection/lowWater`` unwritten, the mark that resumes a paused client. Then ``keepsUpAgain`` is
/// triggered, and its groups hand it what waited for a client.
@MainActor
final class SlowConsumerWatch {
    /// The state, changed by the events below.
    enum State: Equatable {
        /// Takes group messages.
        case keepingUp
        /// Took none of its bytes for the bound: takes no group message.
        case slow
    }

    /// How long a client may hold unwritten group lines without a write completing before it is a slow consumer.
    let bound: Duration
    /// Triggered when a slow consumer keeps up again: its groups hand it what waited.
    let keepsUpAgain = SimpleEvent()
    private(set) var state = State.keepingUp
    private let loop: any Loop
    /// The stall clock; `nil` until the client's first group line.
    private var clock: IdleTimer?
    /// Whether the client holds a group line not yet written.
    private let holdsGroupLines: @MainActor () -> Bool
    /// Takes the client's unwritten group lines back, for the other clients of their groups.
    private let onSlow: @MainActor () -> Void

    /// A watch of a client that keeps up.
    ///
    /// - Parameters:
    ///   - bound: How long without a completed write makes a client that holds unwritten group lines slow; positive.
    ///   - loop: The loop whose timers measure it.
    ///   - holdsGroupLines: Whether the client holds a group line not yet written.
    ///   - onSlow: Runs when the client becomes slow, after ``isSlow`` became `true`.
    init(
        bound: Duration,
        loop: any Loop,
        holdsGroupLines: @escaping @MainActor () -> Bool,
        onSlow: @escaping @MainActor () -> Void
    ) {
        self.bound = bound
        self.loop = loop
        self.holdsGroupLines = holdsGroupLines
        self.onSlow = onSlow
    }

    /// Whether the client is a slow consumer: it takes no group message.
    var isSlow: Bool { state == .slow }

    /// A group line is about to be handed to the client; `holdingOthers` says whether it already held unwritten ones
    /// (then the clock runs on from the older one).
    func handingOver(holdingOthers: Bool) {
        guard !holdingOthers else { return }
        if let clock {
            clock.noteActivity()
        } else {
            clock = IdleTimer(timeout: bound, loop: loop, label: "pubsub: slow consumer check") { [weak self] in
                self?.stalled()
            }
        }
    }

    /// Writes of the client completed, leaving `unsent` bytes not yet written: the clock starts again, and a slow
    /// consumer that is down to ``ClientConnection/lowWater`` keeps up again.
    func writesCompleted(unsent: Int) {
        clock?.noteActivity()
        guard state == .slow, unsent <= ClientConnection.lowWater else { return }
        state = .keepingUp
        keepsUpAgain.trigger()
    }

    /// Stops the clock for good (the client went away).
    func cancel() {
        clock?.cancel()
        clock = nil
    }

    /// The bound passed without a completed write: a client that holds group lines is slow from now on.
    private func stalled() {
        guard state == .keepingUp, holdsGroupLines() else { return }
        state = .slow
        onSlow()
    }
}
