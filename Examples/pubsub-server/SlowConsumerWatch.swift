import Mainline

/// Decides when one client is a slow consumer of its queue groups, and when it keeps up again.
///
/// Must be used on the main actor (its ``ClientConnection`` owns it).
///
/// A client is a **slow consumer** once it has held a queue group's line not yet written to the kernel for the bound
/// (``bound``, `--slow-consumer-ms`) without any write of it completing: it took none of the bytes sent to it
/// meanwhile, whether it is paused or not. The clock starts when a group line is handed to a client that held none
/// unwritten, and starts again at each write that completes; it is an ``IdleTimer`` that runs only while the client
/// holds group lines (it stops at its first tick that finds none, and when the client becomes slow), so clients that
/// hold nothing cost no timer.
///
/// The moment a client becomes slow, ``onSlow`` runs (the connection takes its group lines back, for the group's
/// other clients), and it accepts no group message until it keeps up again: a write completes and leaves no more than
/// ``ClientConnection/lowWater`` unwritten, the mark that resumes a paused client. Then ``keepsUpAgain`` is
/// triggered, and its groups hand it what waited for a client.
///
/// The decisions are ``State``'s, a value without I/O; this class performs the actions it returns.
@MainActor
final class SlowConsumerWatch {
    /// How long a client may hold unwritten group lines without a write completing before it is a slow consumer.
    let bound: Duration
    /// Triggered when a slow consumer keeps up again: its groups hand it what waited.
    let keepsUpAgain = SimpleEvent()
    private var state = State()
    private let loop: any Loop
    /// The stall clock, while ``state`` says it runs.
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
    var isSlow: Bool { state.isSlow }

    /// A group line is about to be handed to the client; `holdingOthers` says whether it already held unwritten ones
    /// (then the clock runs on from the older one).
    func handingOver(holdingOthers: Bool) {
        perform(state.handingOver(holdingOthers: holdingOthers))
    }

    /// Writes of the client completed, leaving `unsent` bytes not yet written: the clock starts again, and a slow
    /// consumer that is down to ``ClientConnection/lowWater`` keeps up again.
    func writesCompleted(unsent: Int) {
        perform(state.writesCompleted(keepsUp: unsent <= ClientConnection.lowWater))
    }

    /// Stops the clock for good (the client went away).
    func cancel() {
        perform(state.cancelled())
    }

    private func perform(_ action: State.Action) {
        switch action {
        case .none:
            break
        case .startClock:
            clock = IdleTimer(timeout: bound, loop: loop, label: "pubsub: slow consumer check") { [weak self] in
                guard let self else { return }
                self.perform(self.state.boundPassed(holdsGroupLines: self.holdsGroupLines()))
            }
        case .restartClock:
            clock?.noteActivity()
        case .stopClock:
            stopClock()
        case .becomeSlow:
            stopClock()
            onSlow()
        case .keepUpAgain:
            keepsUpAgain.trigger()
        }
    }

    private func stopClock() {
        clock?.cancel()
        clock = nil
    }
}

extension SlowConsumerWatch {
    /// What the watch knows of its client; its events return what the watch must do. A value without I/O.
    struct State: Equatable {
        /// The client's standing.
        enum Standing: Equatable {
            /// Takes group messages; `clockRuns` while it holds group lines (or until the clock's next tick).
            case keepingUp(clockRuns: Bool)
            /// Took none of its bytes for the bound: takes no group message, and no clock runs.
            case slow
            /// The client went away: nothing more happens.
            case gone
        }

        /// What the watch does after an event.
        enum Action: Equatable {
            case none
            /// Start the stall clock (a group line went to a client that held none, and no clock ran).
            case startClock
            /// Note activity on the running clock: the bound counts from now.
            case restartClock
            /// Stop the clock: nothing to watch.
            case stopClock
            /// Stop the clock and take the client's group lines back: it is a slow consumer now.
            case becomeSlow
            /// Tell the client's groups it takes group messages again.
            case keepUpAgain
        }

        private(set) var standing = Standing.keepingUp(clockRuns: false)

        /// Whether the client takes no group message.
        var isSlow: Bool { standing == .slow }

        /// A group line is about to be handed over; `holdingOthers` when the client already held unwritten ones.
        mutating func handingOver(holdingOthers: Bool) -> Action {
            guard case .keepingUp(let clockRuns) = standing else { return .none }
            if !clockRuns {
                standing = .keepingUp(clockRuns: true)
                return .startClock
            }
            return holdingOthers ? .none : .restartClock
        }

        /// Writes completed; `keepsUp` when what stays unwritten is down to the low-water mark.
        mutating func writesCompleted(keepsUp: Bool) -> Action {
            switch standing {
            case .keepingUp(clockRuns: true): return .restartClock
            case .keepingUp(clockRuns: false), .gone: return .none
            case .slow:
                guard keepsUp else { return .none }
                standing = .keepingUp(clockRuns: false)
                return .keepUpAgain
            }
        }

        /// The bound passed without a completed write: slow when the client holds group lines; otherwise the clock
        /// stops until the next group line.
        mutating func boundPassed(holdsGroupLines: Bool) -> Action {
            guard case .keepingUp(clockRuns: true) = standing else { return .none }
            if holdsGroupLines {
                standing = .slow
                return .becomeSlow
            }
            standing = .keepingUp(clockRuns: false)
            return .stopClock
        }

        /// The client went away.
        mutating func cancelled() -> Action {
            standing = .gone
            return .stopClock
        }
    }
}
