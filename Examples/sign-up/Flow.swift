import Mainline

// The sign-up flow: three coordinators, each the child of the one before. Each can be built from a route's data,
// so a route can jump straight into a nested step (the upstream "deep link from a notification").

/// A screen with text to show.
@MainActor
final class TextScreen: Screen {
    let body: String

    init(_ name: String, body: String, owner: AnyCoordinator) {
        self.body = body
        super.init(name, owner: owner)
    }
}

/// Something that takes the user's typed commands while one of its screens is on top.
@MainActor
protocol CommandHandling: AnyObject {
    /// Handles `command` (the first word) with `argument` (the rest); returns an error message, or `nil`.
    func handle(_ command: String, _ argument: String) -> String?
}

/// Step 1: the email address. Completes with the account's email once the last step is confirmed.
@MainActor
final class SignUpCoordinator: Coordinator<String>, RoutableCoordinator, CommandHandling {
    struct Input: Decodable { var email: String? }
    private(set) var email: String?

    init(email: String? = nil) {
        self.email = email
        super.init(
            completed: { email in terminal.finish("Welcome, \(email)! Your account was created.") },
            cancelled: { terminal.finish("Sign-up cancelled.") }
        )
    }

    convenience init(routeData: RouteData) throws {
        self.init(email: try routeData.decode(Input.self).email)
    }

    override func start() {
        let prefilled = email.map { " (from the route: \($0))" } ?? ""
        show(TextScreen("Email", body: "Type: email <address>\(prefilled)", owner: self))
    }

    func handle(_ command: String, _ argument: String) -> String? {
        guard command == "email" else { return "unknown command '\(command)' here; type: email <address>" }
        guard argument.contains("@"), !argument.contains(" ") else { return "'\(argument)' is not an email address" }
        email = argument
        startChild(PasswordCoordinator(), presentation: .push(terminal.stack))
        return nil
    }

    /// The last step confirmed.
    func confirmed() {
        guard let email else { return }
        complete(with: email)
    }
}

/// Step 2: the password. Pushed above the email screen; `back` pops it (and cancels this step).
@MainActor
final class PasswordCoordinator: Coordinator<Void>, RoutableCoordinator, CommandHandling {
    init() {
        super.init(cancelled: { terminal.note("(password step cancelled)") })
    }

    convenience init(routeData: RouteData) throws {
        self.init()
    }

    override func start() {
        show(TextScreen("Password", body: "Type: password <at least 8 characters>, or back", owner: self))
    }

    func handle(_ command: String, _ argument: String) -> String? {
        switch command {
        case "back":
            terminal.stack.pop()
            return nil
        case "password":
            guard argument.count >= 8 else { return "a password needs at least 8 characters" }
            startChild(ConfirmCoordinator(), presentation: .present(terminal.modal, style: .sheet))
            return nil
        default:
            return "unknown command '\(command)' here; type: password <secret>, or back"
        }
    }
}

/// Step 3: a modal confirmation. `yes` finishes the sign-up; `no` dismisses it (and cancels this step).
@MainActor
final class ConfirmCoordinator: Coordinator<Bool>, RoutableCoordinator, CommandHandling {
    init() {
        super.init(cancelled: { terminal.note("(confirmation dismissed)") })
    }

    convenience init(routeData: RouteData) throws {
        self.init()
    }

    private var signUp: SignUpCoordinator? { parent?.parent as? SignUpCoordinator }

    override func start() {
        let email = signUp?.email ?? "?"
        show(TextScreen("Confirm", body: "Create an account for \(email)? Type: yes or no", owner: self))
    }

    func handle(_ command: String, _ argument: String) -> String? {
        switch command {
        case "yes":
            let signUp = signUp
            complete(with: true)
            terminal.modal.dismissModal()
            signUp?.confirmed()
            return nil
        case "no":
            terminal.modal.dismissModal()
            return nil
        default:
            return "unknown command '\(command)' here; type: yes or no"
        }
    }
}
