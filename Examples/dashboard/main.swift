// dashboard — a live terminal table of worker jobs, drawn from a data source tree, in owner mode.
//
// Worker threads run simulated jobs and leave each job's latest state in a `KeyedMailbox`; the loop applies them to
// an `ArrayModel` behind the table's data sources, and the table redraws at most once per loop iteration by replaying
// the delivered `ChangeSet` on its mirror of the rows: only the lines that changed are written (the footer counts
// them). Jobs finish — one of them fails, where the seed says — and the table stays until you press `q`.
// Run it with:
//
//     swift run --package-path Examples dashboard
//     swift run --package-path Examples dashboard --jobs 12 --workers 4 --seed 7 --pace-ms 50
//     swift run --package-path Examples dashboard --help
//
// Keys: `s` cycles the sort (name, progress, status), `g` groups by status with a title per group (and back),
// `f` cycles the filter (all, running, failed), `q` quits. Ctrl-C quits too (exit status 130); either way the
// terminal is restored.
//
// With `--inspect PATH` it serves its loop inspector on a Unix domain socket (watch it with
// `swift run mainline-console PATH`); `--stall-after S [--stall-for MS]` holds the main loop on purpose once, for the
// console's stalls view to show (StallOnPurpose.swift).
//
// Flags (`DashboardCommand`): `--jobs N` (1 to 16, default 8), `--workers W` (1 to 8, default 3), `--seed S`
// (default 1; the same seed gives the same jobs, steps and failure), `--pace-ms P` (milliseconds per progress step,
// 0 to 10,000, default 150). A bad flag, or a terminal too small for the table, exits 64 with a message naming the
// flag.

import ArgumentParser
import Foundation
import Logging
import Mainline

// Parses the command line, then calls `DashboardCommand.run()` synchronously, still on the main thread and outside
// any task: that is where the loop runs.
DashboardCommand.main()

/// The program, once the command line is parsed: the table until `q` or Ctrl-C.
///
/// - Returns: The exit status: 0 after `q`, 130 after Ctrl-C.
/// - Throws: `ValidationError` naming `--jobs` when the terminal is too short for the table.
@MainActor func runDashboard(_ options: DashboardCommand) throws -> Int32 {
    if let size = Terminal.size, size.rows < Dashboard.rowsNeeded(jobs: options.jobs) {
        throw ValidationError(
            "the terminal has \(size.rows) rows; \(options.jobs) jobs need \(Dashboard.rowsNeeded(jobs: options.jobs)). "
                + "Use fewer --jobs or a taller terminal."
        )
    }

    // First, before the objects it shows exist: the mailbox registers with the inspector when it is made.
    var inspector: LoopInspector?
    if let path = options.inspect {
        do {
            inspector = try LoopInspector.start(socketPath: path)
        } catch {
            FileHandle.standardError.write(Data("dashboard: \(error)\n".utf8))
            return 1
        }
    }

    let plan = JobPlan(jobs: options.jobs, workers: options.workers, seed: options.seed)
    let terminal = Terminal()
    let dashboard = Dashboard(plan: plan, seed: options.seed, terminal: terminal)

    terminal.enterFullScreen()
    dashboard.start()
    startWorkers(plan: plan, pace: .milliseconds(options.paceMilliseconds), updates: dashboard.updates)
    startReadingKeys(onKey: { dashboard.handle(key: $0) }, onEnd: { dashboard.quit(status: 0) })
    MainLoop.main.onSignal(.sigint) { _ in dashboard.quit(status: 130) }
    if inspector != nil {
        // Stalls are what an inspector is for: a watchdog reports any callback that holds the loop for 100 ms, and the
        // report (its site, what came before, the loop thread's backtrace) goes to the console's stalls view. Not to a
        // log line: the terminal is the table's.
        MainLoop.main.instrument(
            LoopInstrumentation(
                logger: Logger(label: "dashboard.loop", factory: { _ in SwiftLogNoOpLogHandler() }),
                watchdog: LoopWatchdog(threshold: .milliseconds(100))
            )
        )
    }
    if let stall = options.stall { scheduleStallOnPurpose(after: stall.after, holding: stall.length) }
    MainLoop.main.run()

    inspector?.stop()
    terminal.restore()
    print(dashboard.summary)
    return dashboard.exitStatus
}
