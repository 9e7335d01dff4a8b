import Testing

/// `dashboard`, run as a user runs it: in a terminal (a tmux pane), reading the live table, pressing keys and reading
/// it again.
///
/// Serialized: each test owns one tmux session. Runs use a fixed seed and a fast pace, so every run ends in the same
/// table; the tests wait (with a deadline) for what the screen shows, never for an amount of time.
@Suite("Example: dashboard under tmux", .serialized, .timeLimit(.minutes(2)))
struct DashboardExampleTests {
    /// Prints, in one line, `tty:` and the terminal's canonical-mode and echo flags once the program has exited.
    static let terminalProbe =
        #"echo "tty:$(stty -a | tr ' ;' '\n\n' | grep -xE -- '-?(icanon|echo)' | tr '\n' ' ')end""#

    static func start(
        _ arguments: [String] = ["--jobs", "8", "--workers", "3", "--seed", "42", "--pace-ms", "5"]
    )
        throws -> TmuxSession
    {
        try TmuxSession(product: "dashboard", arguments: arguments, afterExit: terminalProbe)
    }

    /// Waits until every job is done or failed, on the table and in the footer.
    static func waitUntilFinished(_ session: TmuxSession) async throws -> DashboardScreen {
        DashboardScreen(
            try await session.waitUntil("8 finished jobs") {
                let screen = DashboardScreen($0)
                return screen.rows.count == 8 && screen.rows.allSatisfy { $0.status == "done" || $0.status == "failed" }
                    && screen.footer.map { $0.done + $0.failed == 8 } == true
            }
        )
    }

    @Test func everyJobFinishesOneFailsAndEachRedrawWritesOnlyTheLinesThatChanged() async throws {
        let session = try Self.start()
        let screen = try await Self.waitUntilFinished(session)

        #expect(screen.title == "mainline dashboard: 8 jobs on 3 workers (seed 42)")
        #expect(screen.statusLine.hasPrefix("sort: name  group: off  filter: all"))
        #expect(screen.rows.map(\.name) == screen.rows.map(\.name).sorted())
        #expect(Set(screen.rows.map(\.worker)) == ["w1", "w2", "w3"])
        let failed = screen.rows.filter { $0.status == "failed" }
        #expect(failed.count == 1)
        #expect(failed.allSatisfy { $0.progress < 100 })
        #expect(screen.rows.filter { $0.status == "done" }.allSatisfy { $0.progress == 100 })

        let footer = try #require(screen.footer)
        #expect(footer.done == 7)
        #expect(footer.failed == 1)
        #expect(footer.running == 0)
        // The first redraw wrote the whole table; each one after it only the rows that changed in its iteration
        // (with three workers, a few at most), so the last one wrote fewer lines than the table has, and a redraw
        // writes fewer on average. Redrawing the whole table each time fails both.
        #expect(footer.redraws >= 2)
        #expect(footer.last < screen.rows.count)
        #expect(footer.linesDrawn < footer.redraws * screen.rows.count)
    }

    @Test func keysSortGroupAndFilterTheTableRedrawingOnlyWhatMoved() async throws {
        let session = try Self.start()
        let finished = try await Self.waitUntilFinished(session)
        let byName = finished.rows
        let byProgress = byName.sorted { ($0.progress, $1.name) > ($1.progress, $0.name) }
        let statusOrder = ["running", "queued", "failed", "done"]
        let byStatus = byName.sorted {
            (statusOrder.firstIndex(of: $0.status)!, $0.name) < (statusOrder.firstIndex(of: $1.status)!, $1.name)
        }
        let failed = byName.filter { $0.status == "failed" }
        let done = byName.filter { $0.status == "done" }
        var before = finished

        /// Presses `key`, waits for the status line and the table it leads to, and checks how many lines the redraw
        /// wrote: `full` for a newly shown source, else exactly the lines whose text changed.
        func press(_ key: String, status: String, table: [String], full: Bool = false) async throws {
            try session.press(key)
            let after = DashboardScreen(
                try await session.waitUntil("\(status) with \(table)") {
                    let screen = DashboardScreen($0)
                    return screen.statusLine.hasPrefix(status) && screen.table == table
                        && screen.footer?.redraws == before.footer.map { $0.redraws + 1 }
                }
            )
            let changed = (0..<max(before.table.count, after.table.count)).count {
                before.table.indices.contains($0) != after.table.indices.contains($0)
                    || before.table[$0] != after.table[$0]
            }
            let expected = full ? max(before.table.count, after.table.count) : changed
            #expect(after.footer?.last == expected, "lines drawn after '\(key)' (\(status))")
            before = after
        }

        try await press("s", status: "sort: progress  group: off  filter: all", table: byProgress.map(\.line))
        try await press("s", status: "sort: status  group: off  filter: all", table: byStatus.map(\.line))
        try await press("s", status: "sort: name  group: off  filter: all", table: byName.map(\.line))
        try await press(
            "g",
            status: "sort: name  group: status  filter: all",
            table: ["== failed =="] + failed.map(\.line) + ["== done =="] + done.map(\.line),
            full: true
        )
        try await press("f", status: "sort: name  group: status  filter: running", table: [])
        try await press(
            "f",
            status: "sort: name  group: status  filter: failed",
            table: ["== failed =="] + failed.map(\.line)
        )
        try await press("g", status: "sort: name  group: off  filter: failed", table: failed.map(\.line), full: true)
        try await press("f", status: "sort: name  group: off  filter: all", table: byName.map(\.line))

        try session.press("q")
        let exited = try await session.waitFor("tty:")
        #expect(exited.contains("dashboard: 8 jobs, 7 done, 1 failed, 0 unfinished"))
        #expect(exited.contains("exit=0"))
        #expect(exited.contains("tty:icanon echo end"))
        #expect(!exited.contains("== done =="))  // the table was on the alternate screen, which is gone
    }

    @Test func ctrlCStopsARunningDashboardWithStatus130AndRestoresTheTerminal() async throws {
        let session = try Self.start(["--jobs", "4", "--seed", "7", "--pace-ms", "10000"])
        try await session.waitUntil("a running job") { DashboardScreen($0).rows.contains { $0.status == "running" } }
        try session.pressNamed("C-c")
        let exited = try await session.waitFor("tty:")
        #expect(exited.contains("dashboard: 4 jobs, 0 done, 0 failed, 4 unfinished"))
        #expect(exited.contains("exit=130"))
        #expect(exited.contains("tty:icanon echo end"))
    }

    @Test func aBadFlagIsRejectedByNameWithExitStatus64() async throws {
        let session = try Self.start(["--jobs", "0"])
        let screen = try await session.waitFor("tty:")
        #expect(screen.contains("--jobs must be a number in 1...16, got '0'"))
        #expect(screen.contains("exit=64"))
        #expect(screen.contains("tty:icanon echo end"), "the terminal was never taken")
    }

    @Test func aTerminalTooShortForTheTableIsRefusedWithExitStatus64() async throws {
        let session = try TmuxSession(product: "dashboard", arguments: ["--jobs", "12"], rows: 12)
        let screen = try await session.waitFor("exit=")
        #expect(screen.contains("the terminal has 12 rows; 12 jobs need 21."))
        #expect(screen.contains("exit=64"))
    }

    @Test func helpNamesEveryFlagSaysWhatItShowsAndHowToQuitAndExitsZero() async throws {
        try await CommandLineChecks.expectHelp(
            "dashboard",
            naming: ["--jobs", "--workers", "--seed", "--pace-ms", "--inspect", "--stall-after", "--stall-for"],
            mentioning: [
                "worker jobs", "Press q to quit", "Ctrl-C", "swift run mainline-console PATH", "stall on purpose",
            ]
        )
    }

    @Test(arguments: [
        (["--jobs", "17"], "--jobs must be a number in 1...16, got '17'"),
        (["--workers", "0"], "--workers must be a number in 1...8, got '0'"),
        (["--workers", "9"], "--workers must be a number in 1...8, got '9'"),
        (["--pace-ms", "10001"], "--pace-ms must be a number in 0...10000, got '10001'"),
        (["--pace-ms", "fast"], "'--pace-ms <p>'"),
        (["--seed", "-1"], "'--seed <s>'"),
        (["--jobs"], "'--jobs <n>'"),
        (["--colour", "red"], "'--colour'"),
        (["--stall-for", "100"], "--stall-for needs --stall-after"),
        (["--stall-after", "4000"], "--stall-after must be a number of seconds in 0...3600, got '4000.0'"),
        (["--stall-after", "1", "--stall-for", "0"], "--stall-for must be a number in 1...60000, got '0'"),
        (["--inspect"], "'--inspect <path>'"),
    ])
    func aBadFlagExitsWithStatus64NamingItWithoutTouchingTheTerminal(
        arguments: [String],
        message: String
    )
        async throws
    {
        try await CommandLineChecks.expectUsageError("dashboard", arguments, saying: message)
    }
}

/// What the dashboard's screen shows, read from a tmux capture of the visible pane.
struct DashboardScreen {
    /// One job row, split into its columns.
    struct Row: Equatable {
        var line: String
        var name: String
        var worker: String
        var status: String
        var progress: Int
    }

    /// The footer's counters.
    struct Footer {
        var redraws: Int
        var linesDrawn: Int
        var last: Int
        var done: Int
        var failed: Int
        var running: Int
    }

    var title: String
    var statusLine: String
    /// The table's lines (rows and group titles), from screen row 4 to the first blank row, trailing spaces trimmed.
    var table: [String]
    var rows: [Row]
    var footer: Footer?

    init(_ screen: String) {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0.reversed().drop { $0 == " " }.reversed())
        }
        title = lines.first ?? ""
        statusLine = lines.count > 1 ? lines[1] : ""
        table = Array(lines.dropFirst(3).prefix { !$0.isEmpty })
        rows = table.compactMap { line in
            let words = line.split(separator: " ").map(String.init)
            guard words.count == 5, words[0] != "==", let percent = Int(words[4].dropLast()) else { return nil }
            return Row(line: line, name: words[0], worker: words[1], status: words[2], progress: percent)
        }
        footer = lines.first { $0.hasPrefix("redraws:") }.flatMap(Self.footer)
    }

    /// Reads `redraws: N  lines drawn: M  last: K  jobs: done X/Y failed Z running R  …`.
    private static func footer(_ line: String) -> Footer? {
        let words = line.split(separator: " ").map(String.init)
        func number(after word: String) -> Int? {
            guard let index = words.firstIndex(of: word), index + 1 < words.count else { return nil }
            return Int(words[index + 1].split(separator: "/").first ?? "")
        }
        guard let redraws = number(after: "redraws:"), let drawn = number(after: "drawn:"),
            let last = number(after: "last:"), let done = number(after: "done"), let failed = number(after: "failed"),
            let running = number(after: "running")
        else { return nil }
        return Footer(redraws: redraws, linesDrawn: drawn, last: last, done: done, failed: failed, running: running)
    }
}
