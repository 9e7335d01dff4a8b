import ArgumentParser

/// The dashboard's command line: `--jobs N`, `--workers W`, `--seed S`, `--pace-ms P`, and `--help`.
///
/// A synchronous `ParsableCommand`, not an `AsyncParsableCommand`: `main.swift` calls ``main()``, which parses the
/// arguments and calls ``run()`` right there, on the main thread and outside any task, so the loop can take the main
/// thread (owner mode). An async command would run in a task, and `MainLoop.run()` traps there.
struct DashboardCommand: ParsableCommand {
    /// The most worker threads.
    static let maximumWorkers = 8
    /// The slowest pace, in milliseconds per progress step.
    static let maximumPaceMilliseconds = 10_000

    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "A live terminal table of worker jobs, redrawn by replaying change sets.",
        discussion: """
            Worker threads run simulated jobs; the table shows each job's worker, status and progress, and a footer \
            counts the jobs and how many lines each redraw wrote (only the lines that changed). The jobs finish — \
            one of them fails, where the seed says — and the table stays until you quit.

            Keys: s cycles the sort (name, progress, status), g groups by status, f cycles the filter (all, running, \
            failed). Press q to quit (exit status 0) or Ctrl-C (exit status 130); either way the terminal is \
            restored and a summary is printed. The terminal needs 9 rows more than there are jobs.

            With --inspect PATH the dashboard serves its loop inspector on a Unix domain socket at PATH (owner-only; \
            removed when it exits): watch it with `swift run mainline-console PATH` from another terminal. \
            --stall-after S holds the main loop on purpose S seconds after the start, for --stall-for milliseconds \
            (1500 unless told), in holdTheLoopOnPurpose(milliseconds:), scheduled in StallOnPurpose.swift with the \
            label "dashboard: stall on purpose": a stall to find in the console's stalls view. A socket that cannot \
            be served exits 1.
            """
    )

    @Option(help: ArgumentHelp("How many jobs (1 to \(JobPlan.maximumJobs)).", valueName: "n"))
    var jobs = 8

    @Option(help: ArgumentHelp("How many worker threads run them (1 to \(Self.maximumWorkers)).", valueName: "w"))
    var workers = 3

    @Option(
        help: ArgumentHelp("The plan's seed: the same seed gives the same jobs, steps and failure.", valueName: "s")
    )
    var seed: UInt64 = 1

    @Option(
        name: .customLong("pace-ms"),
        help: ArgumentHelp(
            "Milliseconds a worker spends on one progress step (0 to \(Self.maximumPaceMilliseconds)).",
            valueName: "p"
        )
    )
    var paceMilliseconds = 150

    @Option(
        name: .customLong("inspect"),
        help: ArgumentHelp(
            "Serve the loop inspector on a Unix domain socket at this path (for mainline-console).",
            valueName: "path"
        )
    )
    var inspect: String?

    @Option(
        name: .customLong("stall-after"),
        help: ArgumentHelp(
            "Hold the main loop on purpose this many seconds after the start (0 to 3600), for --stall-for.",
            valueName: "s"
        )
    )
    var stallAfterSeconds: Double?

    @Option(
        name: .customLong("stall-for"),
        help: ArgumentHelp(
            "How long the stall of --stall-after holds the loop, in milliseconds (1 to 60000; 1500 unless told).",
            valueName: "ms"
        )
    )
    var stallForMilliseconds: Int?

    /// The longest stall on purpose, in milliseconds.
    static let maximumStallMilliseconds = 60_000

    func validate() throws {
        try Self.check("--jobs", jobs, in: 1...JobPlan.maximumJobs)
        try Self.check("--workers", workers, in: 1...Self.maximumWorkers)
        try Self.check("--pace-ms", paceMilliseconds, in: 0...Self.maximumPaceMilliseconds)
        if let stallAfterSeconds, !(0...3_600).contains(stallAfterSeconds) {
            throw ValidationError("--stall-after must be a number of seconds in 0...3600, got '\(stallAfterSeconds)'")
        }
        if let stallForMilliseconds {
            guard stallAfterSeconds != nil else { throw ValidationError("--stall-for needs --stall-after") }
            try Self.check("--stall-for", stallForMilliseconds, in: 1...Self.maximumStallMilliseconds)
        }
    }

    /// The stall on purpose the command line asks for, if any: when, and for how long.
    var stall: (after: Duration, length: Duration)? {
        stallAfterSeconds.map { (.milliseconds(Int($0 * 1_000)), .milliseconds(stallForMilliseconds ?? 1_500)) }
    }

    func run() throws {
        // `main()` calls this synchronously on the main thread, which is the main actor's; the loop needs both.
        let status = try MainActor.assumeIsolated { try runDashboard(self) }
        if status != 0 { throw ExitCode(status) }  // the parser's way to exit with a status and no message
    }

    /// Throws a `ValidationError` naming `flag` unless `value` is in `range`.
    private static func check(_ flag: String, _ value: Int, in range: ClosedRange<Int>) throws {
        guard !range.contains(value) else { return }
        throw ValidationError("\(flag) must be a number in \(range.lowerBound)...\(range.upperBound), got '\(value)'")
    }
}
