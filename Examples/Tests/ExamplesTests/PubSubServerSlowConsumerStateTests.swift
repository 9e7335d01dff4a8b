import Foundation
import Testing

@testable import pubsub_server

/// The slow consumer watch's decisions, without I/O: every sequence of its events up to six long, with what must hold
/// after each step.
@Suite("Example: pubsub-server's slow consumer state, every sequence of events")
struct PubSubServerSlowConsumerStateTests {
    typealias State = SlowConsumerWatch.State

    /// One event of the watch, with its argument.
    enum Event: CaseIterable {
        case handOverFirst, handOverAnother, writesLeavingMuch, writesLeavingLittle, boundHolding, boundEmpty, gone

        func apply(to state: inout State) -> State.Action {
            switch self {
            case .handOverFirst: state.handingOver(holdingOthers: false)
            case .handOverAnother: state.handingOver(holdingOthers: true)
            case .writesLeavingMuch: state.writesCompleted(keepsUp: false)
            case .writesLeavingLittle: state.writesCompleted(keepsUp: true)
            case .boundHolding: state.boundPassed(holdsGroupLines: true)
            case .boundEmpty: state.boundPassed(holdsGroupLines: false)
            case .gone: state.cancelled()
            }
        }
    }

    @Test func aClockRunsOnlyWhileAKeepingUpClientMayHoldLinesAndSlownessEndsOnlyByKeepingUp() {
        var explored = 0
        var violations: [String] = []
        var stack: [(state: State, clock: Bool, path: [Event])] = [(State(), false, [])]
        while let (state, clock, path) = stack.popLast() {
            guard path.count < 6 else { continue }
            for event in Event.allCases {
                var next = state
                let action = event.apply(to: &next)
                let steps = { "\(path + [event])" }
                var clockNow = clock
                switch action {
                case .startClock:
                    if clock { violations.append("a second clock: \(steps())") }
                    clockNow = true
                case .restartClock:
                    if !clock { violations.append("restarted a clock that does not run: \(steps())") }
                case .stopClock, .becomeSlow:
                    clockNow = false
                case .keepUpAgain:
                    if !(state.isSlow && event == .writesLeavingLittle) {
                        violations.append("kept up without writes: \(steps())")
                    }
                case .none:
                    break
                }
                explored += 1
                // The clock the watch keeps is the one the state says runs; none for a slow or gone client.
                if clockNow != (next.standing == .keepingUp(clockRuns: true)) {
                    violations.append("clock \(clockNow) in \(next.standing): \(steps())")
                }
                // A bound that passes with nothing held stops the clock: an idle client costs no timer.
                if event == .boundEmpty && clockNow {
                    violations.append("the clock ran on with nothing held: \(steps())")
                }
                // Slow only through the bound with lines held; a gone client stays gone.
                if next.isSlow && !state.isSlow && !(event == .boundHolding && action == .becomeSlow) {
                    violations.append("slow without the bound: \(steps())")
                }
                if state.standing == .gone && next.standing != .gone { violations.append("back from gone: \(steps())") }
                stack.append((next, clockNow, path + [event]))
            }
        }
        #expect(violations.isEmpty, "\(violations.count) violations, first: \(violations.prefix(3))")
        #expect(explored == (1...6).reduce(0) { $0 + Int(pow(7.0, Double($1))) })
    }
}
