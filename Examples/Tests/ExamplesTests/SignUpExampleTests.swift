import Foundation
import Testing

/// `sign-up`, run as a user runs it: in a terminal (a tmux pane), typing commands and reading the screen.
///
/// Serialized: each test owns one tmux session. Waiting is bounded by a deadline only so that a broken program
/// fails the test instead of hanging it; the assertions are about what the screen shows, not how fast.
@Suite("Example: sign-up under tmux", .serialized, .timeLimit(.minutes(2)))
struct SignUpExampleTests {
    @Test func aUserSignsUpStepByStepGoingBackOnceAndCorrectingMistakes() async throws {
        let session = try TmuxSession(product: "sign-up")
        try await session.waitFor("── Email ──")
        try session.type("email not-an-address")
        try await session.waitFor("! 'not-an-address' is not an email address")
        // The email view model's action carries the typed address in a bundle; the password step's view model
        // reads it with its spec and shows it: a different address each time proves it is the value just typed.
        try session.type("email grace@example.org")
        try await session.waitFor("Choose a password for grace@example.org.")
        try session.type("back")
        try await session.waitFor("(password step cancelled)")
        try await session.waitFor("── Email ──", occurrences: 2)
        try session.type("email ada@example.com")
        try await session.waitFor("Choose a password for ada@example.com.")
        #expect(try session.screen().components(separatedBy: "── Password ──").count - 1 == 2)
        try session.type("password short")
        try await session.waitFor("! a password needs at least 8 characters")
        try session.type("password correct-horse")
        // The password view model's action carries the email on to the modal confirmation.
        try await session.waitFor("Create an account for ada@example.com?")
        #expect(try !session.screen().contains("Create an account for grace@example.org?"))
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
        let session = try TmuxSession(product: "sign-up", arguments: ["--route", route])
        try await session.waitFor("Create an account for ada@example.com? Type: yes or no")
        try session.type("no")
        try await session.waitFor("── Password ──")
        try session.type("quit")
        let screen = try await session.waitFor("exit=")
        #expect(screen.contains("Bye."))
        #expect(screen.contains("exit=0"))
    }

    @Test func aRouteItemWhoseBundleLacksTheEmailIsRejectedNamingTheRow() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("no-email-route-\(UUID()).json")
        let route = #"""
            {"coordinatorPath": {"id": "sign-up", "items": [
                {"id": "sign-up", "present": "push", "data": {}},
                {"id": "password", "present": "push", "data": {}}
            ]}}
            """#
        try Data(route.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let session = try TmuxSession(product: "sign-up", arguments: ["--route", file.path])
        let screen = try await session.waitFor("exit=")
        #expect(screen.contains(#"route rejected: coordinator "password" could not be built from its data"#))
        #expect(screen.contains(#"Row "email" is missing"#), "the step's view model reads the email from its bundle")
        #expect(screen.contains("exit=64"), "a route the flow rejects is a bad --route")
        #expect(!screen.contains("── Email ──"), "all or nothing: no step was shown")
    }

    @Test func aMalformedRouteIsRejectedWithItsTypedErrorAndExitStatus64() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-route-\(UUID()).json")
        let route = #"{"coordinatorPath": {"id": "x", "items": [{"id": "nobody", "present": "push"}]}}"#
        try Data(route.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let session = try TmuxSession(product: "sign-up", arguments: ["--route", file.path])
        let screen = try await session.waitFor("exit=")
        #expect(screen.contains("route rejected: no coordinator is registered for \"nobody\""))
        #expect(screen.contains("--route"))
        #expect(screen.contains("exit=64"))
    }

    @Test func helpNamesTheRouteFlagSaysWhatItShowsAndHowToQuitAndExitsZero() async throws {
        try await CommandLineChecks.expectHelp(
            "sign-up",
            naming: ["--route"],
            mentioning: ["one step at a time", "email <address>", "Type quit"]
        )
    }

    @Test(arguments: [
        (["--route", "/nonexistent/route.json"], "--route needs a readable JSON file, got '/nonexistent/route.json'"),
        (["--route"], "'--route <file>'"),
        (["--rout", "x.json"], "'--rout'"),
    ])
    func aBadFlagExitsWithStatus64NamingItBeforeAnyStepIsShown(arguments: [String], message: String) async throws {
        try await CommandLineChecks.expectUsageError("sign-up", arguments, saying: message)
    }
}
