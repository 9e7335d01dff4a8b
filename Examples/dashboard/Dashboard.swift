// Dashboard — the screen: a title, a status line, the column header, the table (drawn by `TableRenderer`) and a
// footer with the renderer's counters and the job counts. It applies the workers' updates and the keys, on the loop.
//
//     row 1        mainline dashboard: 8 jobs on 3 workers (seed 42)
//     row 2        sort: name  group: off  filter: all    keys: s sort  g group  f filter  q quit
//     row 3        JOB             WORKER  STATUS   PROGRESS
//     row 4 …      the table: a line per row, and a title line per section when grouped
//     last row     redraws: N  lines drawn: M  last: K  jobs: done X/Y failed Z running R  updates: U (C coalesced)

import Mainline

/// The dashboard on the terminal. Must be used on the main actor.
@MainActor
final class Dashboard {
    /// Where the workers leave each job's latest state; thread-safe to place into. Named: the inspector's mailboxes
    /// view (`--inspect`) shows it as `dashboard-updates`.
    let updates = KeyedMailbox<Int, Job>(name: "dashboard-updates")
    /// The process's exit status once the loop has stopped: 0 after `q` or end of input, 130 after SIGINT.
    private(set) var exitStatus: Int32 = 0

    private let plan: JobPlan
    private let seed: UInt64
    private let table: JobTable
    private let terminal: Terminal
    private lazy var renderer = TableRenderer(firstRow: 4, write: terminal.write) { [unowned self] in footer($0) }
    private var updatesToken: SimpleEventToken?
    private let footerRow: Int

    /// The screen rows the dashboard needs for `jobs` jobs: three header rows, a line per job and per status title,
    /// a blank row and the footer.
    static func rowsNeeded(jobs: Int) -> Int {
        3 + jobs + JobStatus.allCases.count + 2
    }

    init(plan: JobPlan, seed: UInt64, terminal: Terminal) {
        self.plan = plan
        self.seed = seed
        self.terminal = terminal
        table = JobTable(jobs: plan.entries.map(\.job))
        footerRow = Self.rowsNeeded(jobs: plan.entries.count)
    }

    /// Draws the whole screen and starts applying the workers' updates.
    func start() {
        terminal.write(
            Terminal.line(1, "mainline dashboard: \(plan.entries.count) jobs on \(plan.workers) workers (seed \(seed))")
                + Terminal.line(3, JobRowViewModel.header)
        )
        drawStatusLine()
        renderer.show(table.flat) { $0.line }
        updates.event.addObserver(&updatesToken) { [weak self] _ in self?.applyUpdates() }
    }

    /// One key from the keyboard.
    func handle(key: UInt8) {
        switch key {
        case UInt8(ascii: "s"):
            table.cycleSort()
        case UInt8(ascii: "f"):
            table.cycleFilter()
        case UInt8(ascii: "g"):
            if let grouped = table.toggleGrouping() {
                renderer.show(grouped) { JobRowViewModel($0).line }
            } else {
                renderer.show(table.flat) { $0.line }
            }
        case UInt8(ascii: "q"):
            quit(status: 0)
        default:
            return
        }
        drawStatusLine()
    }

    /// Stops the loop; `main` then restores the terminal and exits with `status`.
    func quit(status: Int32) {
        exitStatus = status
        MainLoop.main.stop()
    }

    /// The line `main` prints on the normal screen after the dashboard closed.
    var summary: String {
        let total = plan.entries.count
        return "dashboard: \(total) jobs, \(table.count(.done)) done, \(table.count(.failed)) failed, "
            + "\(total - table.count(.done) - table.count(.failed)) unfinished"
    }

    // MARK: Drawing

    private func applyUpdates() {
        for (_, job) in updates.takeAll() { table.update(job) }
        // The table redraws in this iteration's settle phase if a visible row changed; the job counts change now.
        drawFooter()
    }

    private func drawStatusLine() {
        let sort =
            switch table.sortKey {
            case .name: "name"
            case .progress: "progress"
            case .status: "status"
            }
        let filter =
            switch table.filter {
            case .all: "all"
            case .running: "running"
            case .failed: "failed"
            }
        let group = table.grouped == nil ? "off" : "status"
        terminal.write(
            Terminal.line(
                2,
                "sort: \(sort)  group: \(group)  filter: \(filter)    keys: s sort  g group  f filter  q quit"
            )
        )
    }

    private func drawFooter() {
        terminal.write(footer(renderer.counters))
    }

    /// The footer's line, ready to write.
    private func footer(_ counters: TableRenderer.Counters) -> String {
        let mailbox = updates.counts
        var footer = "redraws: \(counters.redraws)  lines drawn: \(counters.linesDrawn)  last: \(counters.lastRedraw)"
        footer += "  jobs: done \(table.count(.done))/\(plan.entries.count) failed \(table.count(.failed))"
        footer += " running \(table.count(.running))  updates: \(mailbox.accepted) (\(mailbox.dropped) coalesced)"
        if counters.resyncs > 0 { footer += "  resyncs: \(counters.resyncs)" }
        return Terminal.line(footerRow, footer)
    }
}
