import Mainline

// The sign-up flow: three coordinators, each the child of the one before. Each screen's view model navigates with
// its own actions through a navigator made from its coordinator (or the terminal's stack-with-modal), which maps
// each action to the next step: pushed, presented, popped or dismissed. Each coordinator can also be built from a
// route's data — the same bundle an action would carry, as JSON — so a route can jump straight into a nested step
// (the upstream "deep link from a notification").

/// A screen with text to show, and the view model that takes its commands.
@MainActor
final class TextScreen: Screen {
    let body: String
    let model: CommandHandling

    init(_ name: String, body: String, model: CommandHandling, owner: AnyCoordinator) {
        self.body = body
        self.model = model
        super.init(name, owner: owner)
    }
}

/// Step 1: the email address. Completes with the account's email once the last step is confirmed.
@MainActor
final class SignUpCoordinator: Coordinator<String>, RoutableCoordinator {
    struct Input: Decodable { var email: String? }
    private let prefilled: String?

    init(email: String? = nil) {
        self.prefilled = email
        super.init(
            completed: { email in terminal.finish("Welcome, \(email)! Your account was created.") },
            cancelled: { terminal.finish("Sign-up cancelled.") }
        )
    }

    convenience init(routeData: RouteData) throws {
        self.init(email: try routeData.decode(Input.self).email)
    }

    override func start() {
        // The coordinator is the navigator: `.password` pushes the password step as this coordinator's child.
        let navigator = navigator(for: EmailNavigation.self) { action in
            switch action {
            case .password(let bundle): .push(try PasswordCoordinator(bundle: bundle))
            }
        }
        let hint = prefilled.map { " (from the route: \($0))" } ?? ""
        let model = EmailViewModel(navigator: navigator)
        show(TextScreen("Email", body: "Type: email <address>\(hint)", model: model, owner: self))
    }

    /// The last step confirmed `email`.
    func confirmed(email: String) {
        complete(with: email)
    }
}

/// Step 2: the password, for the email in its bundle. Pushed above the email screen; `back` pops it (and cancels
/// this step).
@MainActor
final class PasswordCoordinator: Coordinator<Void>, RoutableCoordinator {
    private let input: PasswordViewModel.Input

    init(bundle: NavigationBundle) throws(NavigationBundleGetError) {
        input = try PasswordViewModel.Input(bundle: bundle)
        super.init(cancelled: { terminal.note("(password step cancelled)") })
    }

    convenience init(routeData: RouteData) throws {
        try self.init(bundle: NavigationBundle(json: routeData.json, spec: SignUpBundle.spec))
    }

    override func start() {
        // The stack-with-modal is the navigator: `.back` pops, `.confirm` presents the confirmation as a sheet.
        let navigator = terminal.flow.navigator(for: PasswordNavigation.self, coordinator: self) { action in
            switch action {
            case .back: .pop
            case .confirm(let bundle): .present(try ConfirmCoordinator(bundle: bundle), style: .sheet)
            }
        }
        let model = PasswordViewModel(input, navigator: navigator)
        let body = "Choose a password for \(model.email). Type: password <at least 8 characters>, or back"
        show(TextScreen("Password", body: body, model: model, owner: self))
    }
}

/// Step 3: a modal confirmation of the email in its bundle. `yes` finishes the sign-up; `no` dismisses it (and
/// cancels this step).
@MainActor
final class ConfirmCoordinator: Coordinator<Bool>, RoutableCoordinator {
    private let input: ConfirmViewModel.Input

    init(bundle: NavigationBundle) throws(NavigationBundleGetError) {
        input = try ConfirmViewModel.Input(bundle: bundle)
        super.init(cancelled: { terminal.note("(confirmation dismissed)") })
    }

    convenience init(routeData: RouteData) throws {
        try self.init(bundle: NavigationBundle(json: routeData.json, spec: SignUpBundle.spec))
    }

    /// The sign-up this confirmation belongs to, however many steps up.
    private var signUp: SignUpCoordinator? {
        var next = parent
        while let coordinator = next {
            if let signUp = coordinator as? SignUpCoordinator { return signUp }
            next = coordinator.parent
        }
        return nil
    }

    override func start() {
        // Presented in the modal slot, so `.close` dismisses there.
        let navigator = navigator(for: ConfirmNavigation.self) { action in
            switch action {
            case .close: .dismissModal
            }
        }
        let model = ConfirmViewModel(input, navigator: navigator) { [weak self] email in
            guard let self else { return }
            let signUp = self.signUp
            complete(with: true)
            signUp?.confirmed(email: email)
        }
        let body = "Create an account for \(model.email)? Type: yes or no"
        show(TextScreen("Confirm", body: body, model: model, owner: self))
    }
}
