import Mainline

// The view models of the three screens. Each takes the typed commands while its screen is on top and navigates
// with an action; none of them knows the stack, the modal slot or the next screen's type.

/// Something that takes the user's typed commands while its screen is on top.
@MainActor
protocol CommandHandling: AnyObject {
    /// Handles `command` (the first word) with `argument` (the rest); returns an error message, or `nil`.
    func handle(_ command: String, _ argument: String) -> String?
}

extension NavigatingViewModel {
    /// Navigates with `action`; returns what went wrong as a message for the terminal, or `nil`.
    func navigateOrMessage(_ action: Action) -> String? {
        var failure: NavigationError?
        guard state != .cleared else { return "this screen is closed" }
        navigator.navigateOrElse(action) { failure = $0 }
        return failure.map { "\($0)" }
    }
}

/// Step 1: checks the address and navigates to the password step with it.
@MainActor
final class EmailViewModel: NavigatingViewModel<EmailNavigation>, CommandHandling {
    func handle(_ command: String, _ argument: String) -> String? {
        guard command == "email" else { return "unknown command '\(command)' here; type: email <address>" }
        guard argument.contains("@"), !argument.contains(" ") else { return "'\(argument)' is not an email address" }
        return navigateOrMessage(.password(SignUpBundle.with(email: argument)))
    }
}

/// Step 2: reads the email from its bundle; goes back, or on to the confirmation with the email.
@MainActor
final class PasswordViewModel: NavigatingViewModel<PasswordNavigation>, CommandHandling {
    /// What the step reads from its bundle, read before the step is shown: a bundle without it fails the
    /// navigation (or the route) with the `NavigationBundleGetError` naming the row.
    struct Input {
        let email: String
        init(bundle: NavigationBundle) throws(NavigationBundleGetError) {
            email = try bundle.get(SignUpBundle.email)
        }
    }

    let email: String

    init(_ input: Input, navigator: any Navigator<PasswordNavigation>) {
        email = input.email
        super.init(navigator: navigator)
    }

    func handle(_ command: String, _ argument: String) -> String? {
        switch command {
        case "back":
            return navigateOrMessage(.back)
        case "password":
            guard argument.count >= 8 else { return "a password needs at least 8 characters" }
            return navigateOrMessage(.confirm(SignUpBundle.with(email: email)))
        default:
            return "unknown command '\(command)' here; type: password <secret>, or back"
        }
    }
}

/// Step 3: reads the email from its bundle; `yes` confirms it and closes, `no` closes the confirmation.
@MainActor
final class ConfirmViewModel: NavigatingViewModel<ConfirmNavigation>, CommandHandling {
    /// What the step reads from its bundle (see `PasswordViewModel.Input`).
    struct Input {
        let email: String
        init(bundle: NavigationBundle) throws(NavigationBundleGetError) {
            email = try bundle.get(SignUpBundle.email)
        }
    }

    let email: String
    private let onConfirmed: @MainActor (String) -> Void

    init(
        _ input: Input,
        navigator: any Navigator<ConfirmNavigation>,
        onConfirmed: @escaping @MainActor (String) -> Void
    ) {
        email = input.email
        self.onConfirmed = onConfirmed
        super.init(navigator: navigator)
    }

    func handle(_ command: String, _ argument: String) -> String? {
        switch command {
        case "yes":
            // Confirming finishes the flow (its coordinators' business), then the confirmation closes.
            onConfirmed(email)
            return navigateOrMessage(.close)
        case "no":
            return navigateOrMessage(.close)
        default:
            return "unknown command '\(command)' here; type: yes or no"
        }
    }
}
