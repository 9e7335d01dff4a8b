// StallOnPurpose — `--stall-after S --stall-for MS`: the dashboard holds its main loop once, on purpose, so that
// `mainline-console`'s stalls view has a stall to show with a site (this file), a label ("dashboard: stall on
// purpose") and a backtrace whose top frames are `holdTheLoopOnPurpose(milliseconds:)`.

import Foundation
import Mainline

/// Schedules the stall: a main-loop timer, `after` from now, whose body blocks the loop for `length`.
///
/// Must be called on the main actor.
@MainActor func scheduleStallOnPurpose(after: Duration, holding length: Duration) {
    MainLoop.main.schedule(after: after, label: "dashboard: stall on purpose") {
        holdTheLoopOnPurpose(milliseconds: Int(length / .milliseconds(1)))
    }
}

/// Blocks the calling thread — the main loop's, here — for `milliseconds`: nothing else runs on the loop meanwhile.
/// Never inlined, so that a backtrace taken during the stall names it.
@inline(never)
func holdTheLoopOnPurpose(milliseconds: Int) {
    Thread.sleep(forTimeInterval: Double(milliseconds) / 1_000)
}
