// sign-up — a terminal sign-up flow built from headless coordinators, in owner mode.
//
// Each step is a coordinator whose screen is rendered as text; typed commands go to the screen's view model, which
// navigates with typed actions (carrying the email in a bundle) through its coordinator's navigator. A route deep
// link (JSON, from a file; each item's data is the bundle its step reads) jumps straight into a nested step. Run it
// with:
//
//     swift run --package-path Examples sign-up
//     swift run --package-path Examples sign-up --route Examples/sign-up/confirm-route.json
//
// Commands: `email <address>`, `password <secret>`, `back`, `yes`/`no`, `help`, `quit`.

import Foundation
import Mainline

let terminal = Terminal()

let registry = RouteRegistry()
registry.register(SignUpCoordinator.self, as: "sign-up")
registry.register(PasswordCoordinator.self, as: "password")
registry.register(ConfirmCoordinator.self, as: "confirm")

let arguments = CommandLine.arguments
if let flag = arguments.firstIndex(of: "--route") {
    guard let path = arguments.dropFirst(flag + 1).first, let json = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("sign-up: --route needs a readable JSON file\n".utf8))
        exit(2)
    }
    do {
        try registry.perform(try Route(json: json), from: nil, stack: terminal.flow.stack, modal: terminal.flow.modal)
    } catch {
        FileHandle.standardError.write(Data("sign-up: route rejected: \(error)\n".utf8))
        exit(2)
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
