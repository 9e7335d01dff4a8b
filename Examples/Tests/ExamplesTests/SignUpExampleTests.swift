import Foundation
import MainlineTesting
import Testing

/// `sign-up`, run as a user runs it: in a terminal (a tmux pane), typing commands and reading the screen.
///
/// Serialized: each test owns one tmux session. Waiting is bounded by a deadline only so that a broken program
/// fails the test instead of hanging it; the assertions are about what the screen shows, not how fast.
@Suite("Example: sign-up under tmux", .serialized, .timeLimit(.minutes(2)))
struct SignUpExampleTests {
    /// A tmux session running `sign-up`.
    final class Session {
        let name = "mainline-sign-up-\(UInt32.random(in: 0...UInt32.max))"

        init(arguments: [String] = []) throws {
            let binary = try ChildProcess.builtProduct("sign-up")
            let command = ([binary] + arguments).map { "'\($0)'" }.joined(separator: " ")
            // `; sleep 30` keeps the pane (and what the program printed last) readable after it exits.
            try Self.tmux([
                "new-session", "-d", "-s", name, "-x", "120", "-y", "50", "\(command); echo exit=$?; sleep 30",
            ])
        }

        deinit {
            _ = try? Self.tmux(["kill-session", "-t", name])
        }

        /// Types `line` and presses Enter.
        func type(_ line: String) throws {
            try Self.tmux(["send-keys", "-t", name, "-l", line])
            try Self.tmux(["send-keys", "-t", name, "Enter"])
        }

        /// What the pane shows, with its scrollback.
        func screen() throws -> String {
            try Self.tmux(["capture-pane", "-p", "-t", name, "-S", "-200"])
        }

        /// Waits until the screen contains `text`; returns the screen.
        @discardableResult
        func waitFor(_ text: String, occurrences: Int = 1) async throws -> String {
            let deadline = ContinuousClock.now + .seconds(30)
            var last = ""
            while ContinuousClock.now < deadline {
                last = try screen()
                if last.components(separatedBy: text).count - 1 >= occurrences { return last }
                await Task.yield()  // each capture runs tmux, which paces the polling
            }
            Issue.record("the screen never showed \"\(text)\"; it shows:\n\(last)")
            return last
        }

        /// Runs a tmux command and returns what it printed. Only `capture-pane` output is read: a command that starts
        /// the tmux server would hand it the pipe, and reading to its end would then never finish.
        @discardableResult
        static func tmux(_ arguments: [String]) throws -> String {
            let reads = arguments.first == "capture-pane"
            let child = try ChildProcess(
                "tmux",
                arguments,
                searchPath: true,
                standardOutput: reads ? .capture : .discard
            )
            return child.finishBlocking().standardOutput
        }
    }

    @Test func aUserSignsUpStepByStepGoingBackOnceAndCorrectingMistakes() async throws {
        let session = try Session()
        try await session.waitFor("── Email ──")
        try session.type("email not-an-address")
        try await session.waitFor("! 'not-an-address' is not an email address")
        try session.type("email ada@example.com")
        try await session.waitFor("── Password ──")
        try session.type("back")
        try await session.waitFor("(password step cancelled)")
        try await session.waitFor("── Email ──", occurrences: 2)
        try session.type("email ada@example.com")
        try await session.waitFor("── Password ──", occurrences: 2)
        try session.type("password short")
        try await session.waitFor("! a password needs at least 8 characters")
        try session.type("password correct-horse")
        try await session.waitFor("Create an account for ada@example.com?")
        try session.type("no")
        try await session.waitFor("(confirmation dismissed)")
        try session.type("password correct-horse")
        try await session.waitFor("Create an account for ada@example.com?", occurrences: 2)
        try session.type("yes")
        let screen = try await session.waitFor("exit=")
        #expect(screen.contains("Welcome, ada@example.com! Your account was created."))
        #expect(screen.contains("exit=0"))
    }

    @Test func aRouteJumpsStraightIntoTheConfirmationWithTheEmailFromItsData() async throws {
        let route = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("sign-up/confirm-route.json").path
        let session = try Session(arguments: ["--route", route])
        try await session.waitFor("Create an account for ada@example.com? Type: yes or no")
        try session.type("no")
        try await session.waitFor("── Password ──")
        try session.type("quit")
        let screen = try await session.waitFor("exit=")
        #expect(screen.contains("Bye."))
        #expect(screen.contains("exit=0"))
    }

    @Test func aMalformedRouteIsRejectedWithItsTypedErrorAndExitStatus2() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-route-\(UUID()).json")
        try Data(#"{"coordinatorPath": {"id": "x", "items": [{"id": "nobody"}]}}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let session = try Session(arguments: ["--route", file.path])
        let screen = try await session.waitFor("exit=")
        #expect(screen.contains("route rejected: no coordinator is registered for \"nobody\""))
        #expect(screen.contains("exit=2"))
    }
}
