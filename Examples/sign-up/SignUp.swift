import ArgumentParser
import Foundation

/// sign-up's command line: `--route FILE`, and `--help`.
///
/// A synchronous `ParsableCommand`, not an `AsyncParsableCommand`: `main.swift` calls ``main()``, which parses the
/// arguments and calls ``run()`` right there, on the main thread and outside any task, so the loop can take the main
/// thread (owner mode). An async command would run in a task, and `MainLoop.run()` traps there.
struct SignUp: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-up",
        abstract: "A terminal sign-up flow built from headless coordinators.",
        discussion: """
            It shows one step at a time — the email, the password, then a confirmation over them — and reads one \
            command per line: email <address>, password <secret>, back (the step before), yes or no (on the \
            confirmation), help. Each step's screen says what it expects; a mistake is answered with a line that \
            starts with '!'.

            Type quit to leave (Ctrl-C or the end of the input leave too). With --route, the flow opens at the step \
            the route file names instead of the first one.
            """
    )

    @Option(
        help: ArgumentHelp(
            "A route deep link (JSON) to open instead of the first step; each item's data is the bundle its step reads.",
            valueName: "file"
        )
    )
    var route: String?

    func validate() throws {
        if let route, !FileManager.default.isReadableFile(atPath: route) {
            throw ValidationError("--route needs a readable JSON file, got '\(route)'")
        }
    }

    func run() throws {
        // `main()` calls this synchronously on the main thread, which is the main actor's; the loop needs both.
        try MainActor.assumeIsolated { try signUp(route: route) }
    }
}
