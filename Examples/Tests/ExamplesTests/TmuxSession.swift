import Foundation
import Testing
import _MainlineTestSupport

/// A tmux session running one built example in a terminal, as a user runs it: the tests type into it and read the
/// screen.
///
/// `TmuxSession` is **not** thread-safe: one test drives it. Waiting is bounded by a deadline only so that a broken
/// program fails the test instead of hanging it; the assertions are about what the screen shows, not how fast.
final class TmuxSession {
    let name: String
    /// The socket of this session's own tmux server (see ``tmux(_:)``).
    private var socket: String { FileManager.default.temporaryDirectory.appendingPathComponent(name).path }

    /// Starts `product` with `arguments` in a new detached session of `columns` × `rows`.
    ///
    /// After the program exits the pane prints `exit=<status>`, then runs `afterExit` (a shell command line), then
    /// stays open for a while so that what the program printed last can still be read.
    init(
        product: String,
        arguments: [String] = [],
        columns: Int = 120,
        rows: Int = 50,
        afterExit: String = ""
    ) throws {
        name = "mainline-\(product)-\(UInt32.random(in: 0...UInt32.max))"
        let binary = try ChildProcess.builtProduct(product)
        let command = ([binary] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let after = afterExit.isEmpty ? "" : " \(afterExit);"
        // `; sleep 30` keeps the pane (and what the program printed last) readable after it exits.
        try tmux([
            "new-session", "-d", "-s", name, "-x", "\(columns)", "-y", "\(rows)",
            "\(command); echo exit=$?;\(after) sleep 30",
        ])
    }

    deinit {
        _ = try? tmux(["kill-session", "-t", name])
        // The server leaves its socket file behind; a server per session would otherwise litter the tmux directory.
        try? FileManager.default.removeItem(atPath: socket)
    }

    /// Types `line` and presses Enter.
    func type(_ line: String) throws {
        try press(line)
        try tmux(["send-keys", "-t", name, "Enter"])
    }

    /// Presses the keys of `keys`, one by one, without Enter.
    func press(_ keys: String) throws {
        try tmux(["send-keys", "-t", name, "-l", keys])
    }

    /// Presses a key by its tmux name, such as `C-c`.
    func pressNamed(_ key: String) throws {
        try tmux(["send-keys", "-t", name, key])
    }

    /// What the pane shows; with `scrollback`, also the 200 lines above it.
    func screen(scrollback: Bool = true) throws -> String {
        try tmux(["capture-pane", "-p", "-t", name] + (scrollback ? ["-S", "-200"] : []))
    }

    /// Waits until the screen contains `text`; returns the screen.
    @discardableResult
    func waitFor(_ text: String, occurrences: Int = 1) async throws -> String {
        try await waitUntil("the screen shows \"\(text)\"", scrollback: true) {
            $0.components(separatedBy: text).count - 1 >= occurrences
        }
    }

    /// Waits until `condition` holds for the screen; records an issue naming `what` if it never does. Returns the
    /// last screen read.
    ///
    /// A wait on progress, not a deadline: a busy machine makes the program slower, never the test red. It gives up
    /// when the screen has not changed for ``stallLimit`` (the program is stuck, or is done without showing what the
    /// test waits for), or — a screen that keeps changing without ever showing it — after ``overallLimit``.
    @discardableResult
    func waitUntil(
        _ what: String,
        scrollback: Bool = false,
        _ condition: (String) -> Bool
    ) async throws -> String {
        var standStill = StandStill<String>(limit: Self.stallLimit)
        while true {
            let current = try screen(scrollback: scrollback)
            if condition(current) { return current }
            if standStill.hasStoodStill(current) {
                Issue.record(
                    "never saw: \(what); the screen stood still for \(Self.stallLimit) (after \(standStill.waited) in all) and shows:\n\(current)"
                )
                return current
            }
            if standStill.waited >= Self.overallLimit {
                Issue.record(
                    "never saw: \(what) in \(Self.overallLimit), though the screen kept changing; it shows:\n\(current)"
                )
                return current
            }
            await Task.yield()  // each capture runs tmux, which paces the polling
        }
    }

    /// How long the screen may stand still before ``waitUntil(_:scrollback:_:)`` gives up.
    static let stallLimit: Duration = .seconds(60)
    /// How long ``waitUntil(_:scrollback:_:)`` waits in all for a screen that keeps changing.
    static let overallLimit: Duration = .seconds(600)

    /// Runs a tmux command on this session's own server and returns what it printed. Only `capture-pane` output is
    /// read: a command that starts the tmux server would hand it the pipe, and reading to its end would then never
    /// finish.
    ///
    /// Each session has a server of its own (`-S <socket>`). On the shared default server a test once read an empty
    /// pane for its whole deadline (one run in four, while several worktrees ran tmux tests), most likely because
    /// another session's end shut the server down as this one started; a server per session has nothing to race.
    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        let reads = arguments.first == "capture-pane"
        let child: ChildProcess
        do {
            child = try ChildProcess(
                "tmux",
                ["-S", socket] + arguments,
                searchPath: true,
                standardOutput: reads ? .capture : .discard
            )
        } catch {
            throw LineClient.Failure(
                description: "tmux could not be started (\(error)); the README's set-up command installs it"
            )
        }
        return child.finishBlocking().standardOutput
    }
}
