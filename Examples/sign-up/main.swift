// sign-up — a terminal sign-up flow built from headless coordinators, in owner mode.
//
// Each step is a coordinator whose screen is rendered as text; typed commands go to the screen's view model, which
// navigates with typed actions (carrying the email in a bundle) through its coordinator's navigator. A route deep
// link (JSON, from a file; each item's data is the bundle its step reads) jumps straight into a nested step. Run it
// with:
//
//     swift run --package-path Examples sign-up
//     swift run --package-path Examples sign-up --route Examples/sign-up/confirm-route.json
//     swift run --package-path Examples sign-up --help
//
// Commands: `email <address>`, `password <secret>`, `back`, `yes`/`no`, `help`, `quit`. A route file that cannot be
// read, or that the flow rejects, ends the program with status 64 (a bad `--route`) before any step is shown.

import ArgumentParser
import Foundation
import Mainline

// The host, on the loop: every step's coordinator (Flow.swift) reports to it.
let terminal = Terminal()

// Parses the command line, then calls `SignUp.run()` synchronously, still on the main thread and outside any task:
// that is where the loop runs.
SignUp.main()

/// The program, once the command line is parsed: the flow (at its first step, or where `route` says) until `quit`.
///
/// - Throws: `ValidationError` naming `--route` when the route file is not a route the flow accepts.
@MainActor func signUp(route: String?) throws {
    let registry = RouteRegistry()
    registry.register(SignUpCoordinator.self, as: "sign-up")
    registry.register(PasswordCoordinator.self, as: "password")
    registry.register(ConfirmCoordinator.self, as: "confirm")

    if let route {
        do {
            let json = try Data(contentsOf: URL(fileURLWithPath: route))
            try registry.perform(
                try Route(json: json),
                from: nil,
                stack: terminal.flow.stack,
                modal: terminal.flow.modal
            )
        } catch {
            throw ValidationError("--route rejected: \(error)")
        }
    } else {
        SignUpCoordinator().start(presentation: .push(terminal.flow.stack))
    }

    // Typed lines arrive on a thread of their own and are posted into the loop; end of input stops it.
    Thread.detachNewThread {
        while let line = readLine() {
            MainLoop.main.post { terminal.handle(line) }
        }
        MainLoop.main.post { terminal.finish("End of input.") }
    }

    MainLoop.main.onSignal(.sigint) { _ in terminal.finish("Interrupted.") }
    MainLoop.main.run()
}
