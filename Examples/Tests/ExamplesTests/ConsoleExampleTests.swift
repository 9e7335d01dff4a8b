import Foundation
import Testing
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `mainline-console`, run as a user runs it — live, in a terminal (a tmux pane) — against a real example serving its
/// inspector: the views and their keys, freezing, quitting with the terminal restored, and a stall made on purpose.
///
/// Serialized: each test owns one tmux session. The tests wait for what the screen shows, never for an amount of time.
@Suite("Example: mainline-console under tmux", .serialized, .timeLimit(.minutes(3)))
struct ConsoleExampleTests {
    /// The console in a tmux pane, refreshing every 100 ms; after it exits the pane prints its status and the
    /// terminal's canonical-mode and echo flags.
    static func console(_ path: String) throws -> TmuxSession {
        try TmuxSession(
            product: "mainline-console",
            arguments: ["--interval", "100", path],
            afterExit: DashboardExampleTests.terminalProbe
        )
    }

    @Test func theLiveViewSwitchesViewsFreezesAndQuitsRestoringTheTerminal() async throws {
        let folder = Inspection.socketFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/pubsub.sock"
        let server = try ServerProcess("pubsub-server", arguments: ["--inspect", path])
        _ = try await Inspection.snapshot(at: path)
        let session = try Self.console(path)

        try await session.waitUntil("the overview of pubsub-server") {
            $0.contains("mainline-console  pubsub-server (pid \(server.process.pid))") && $0.contains("[1 overview]")
                && $0.contains("LIVE every 100 ms")
        }

        // The view models: none until a client connects, then its view model, live.
        try session.press("4")
        try await session.waitUntil("the view models view, empty") {
            $0.contains("[4 view models]") && $0.contains("no view models")
        }
        let first = try LineClient(port: server.port)
        try first.send("SUB news")
        #expect(first.readLine() == "OK SUB news")
        try await session.waitUntil("the first client's view model") {
            $0.contains("view models: 1 (1 resumed)") && $0.contains("ClientViewModel  resumed")
        }

        // The mailboxes, by letter.
        try session.press("m")
        try await session.waitUntil("the client's outgoing mailbox") {
            $0.contains("[3 mailboxes]") && $0.contains("pubsub-client  keyed")
        }

        // Frozen: a second client is in every new snapshot, but not on the screen, however many refreshes go by.
        try session.press("v")
        try session.press("f")
        try await session.waitUntil("the frozen view models view") {
            $0.contains("[4 view models]") && $0.contains("FROZEN for")
        }
        let second = try LineClient(port: server.port)
        try second.send("SUB weather")
        #expect(second.readLine() == "OK SUB weather")
        let fresh = try await Inspection.snapshot(at: path)
        #expect((fresh["viewModels"] as? [Any])?.count == 2, "the second client is in a new snapshot")
        // A second of frozen display is ten refreshes skipped.
        let frozen = try await session.waitUntil("a second of frozen display") { $0.contains(" s (f: live)") }
        #expect(frozen.contains("view models: 1 (1 resumed)"), "\(frozen)")

        try session.press("f")
        try await session.waitUntil("both view models, live again") {
            $0.contains("view models: 2 (2 resumed)") && $0.contains("LIVE every 100 ms")
        }

        try session.press("q")
        let exited = try await session.waitFor("tty:")
        #expect(exited.contains("exit=0"), "\(exited)")
        #expect(exited.contains("tty:icanon echo end"), "\(exited)")
        #expect(!exited.contains("[4 view models]"), "the views were on the alternate screen, which is gone")
        #expect(await server.terminate().status == 0)
    }

    @Test func ctrlCEndsTheLiveViewWithStatus130AndRestoresTheTerminal() async throws {
        let folder = Inspection.socketFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/pubsub.sock"
        let server = try ServerProcess("pubsub-server", arguments: ["--inspect", path])
        _ = try await Inspection.snapshot(at: path)
        let session = try Self.console(path)
        try await session.waitFor("[1 overview]")

        try session.pressNamed("C-c")

        let exited = try await session.waitFor("tty:")
        #expect(exited.contains("exit=130"), "\(exited)")
        #expect(exited.contains("tty:icanon echo end"), "\(exited)")
        #expect(await server.terminate().status == 0)
    }

    @Test func theConsoleSaysWhenTheProcessGoesAwayAndKeepsTheLastSnapshot() async throws {
        let folder = Inspection.socketFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/pubsub.sock"
        let server = try ServerProcess("pubsub-server", arguments: ["--inspect", path])
        _ = try await Inspection.snapshot(at: path)
        let session = try Self.console(path)
        try await session.waitFor("LIVE every 100 ms")

        #expect(await server.terminate().status == 0)

        try await session.waitUntil("the console detached") {
            // (The path is cut at the terminal's width.)
            $0.contains("DETACHED: cannot attach to /tmp/mainline-examples-") && $0.contains("pubsub-server (pid")
        }
        try session.press("q")
        #expect(try await session.waitFor("tty:").contains("exit=0"))
    }

    @Test func theOverviewShowsTheMainLoopsIterationsBusyTimeAndDelayHistogram() async throws {
        let folder = Inspection.socketFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/pubsub.sock"
        let server = try ServerProcess("pubsub-server", arguments: ["--inspect", path])
        guard Inspection.loops(of: try await Inspection.snapshot(at: path)) != nil else { return }
        let session = try Self.console(path)

        // Iterations per second need two snapshots; the histogram has at least one bucket.
        let screen = try await session.waitUntil("the main loop's overview with a rate") { screen in
            screen.contains("loop main  MainLoop") && screen.contains("  loop delay  p50 ")
                && screen.split(separator: "\n").contains { $0.contains("/s  busy ") && !$0.contains("…/s") }
        }
        #expect(screen.split(separator: "\n").contains { $0.hasPrefix("    <= ") && $0.contains(" |") }, "\(screen)")
        try session.press("q")
        #expect(try await session.waitFor("tty:").contains("exit=0"))
        #expect(await server.terminate().status == 0)
    }

    @Test func aStallMadeOnPurposeShowsInTheStallsViewWithItsSiteLabelFoldedBacktraceAndTotal() async throws {
        let folder = Inspection.socketFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/dashboard.sock"
        let dashboard = try DashboardProcess([
            "--inspect", path, "--pace-ms", "20", "--stall-after", "0.5", "--stall-for", "1500",
        ])
        let started = try await Inspection.snapshot(at: path)
        guard Inspection.loops(of: started) != nil else {
            _ = await dashboard.quit()
            return
        }
        let session = try Self.console(path)
        try await session.waitFor("[1 overview]")

        try session.press("6")
        let screen = try await session.waitUntil("the stall on purpose, with its site and backtrace") {
            $0.contains("[6 stalls]") && $0.contains("STALL of ") && $0.contains("StallOnPurpose.swift:")
                && $0.contains("label: dashboard: stall on purpose") && $0.contains("holdTheLoopOnPurpose")
        }
        #expect(screen.contains("  backtrace:"), "\(screen)")
        // The backtrace is folded to the dashboard's own frames: the rest is counted, and the view fits the pane.
        #expect(screen.contains(" more frames (runtime, loop, glue)"), "\(screen)")
        // Once the stall has ended (1.5 s), the view shows its total, and when the watchdog reported it.
        let ended = try await session.waitUntil("the stall's total, once it ended") {
            $0.contains("(callback; reported at ")
        }
        let header = ended.split(separator: "\n").first { $0.hasPrefix("STALL of ") } ?? ""
        let total = header.dropFirst("STALL of ".count).prefix { $0 != " " }
        #expect(Double(total).map { $0 >= 1.5 } == true && header.contains(" s on loop main"), "\(ended)")

        try session.press("q")
        #expect(try await session.waitFor("tty:").contains("exit=0"))
        #expect(await dashboard.quit().status == 0)
    }
}
