import Mainline

// What the sign-up's view models say when they navigate, and the typed data their actions carry. The view models
// only know these actions; the coordinators' navigators decide which screen each one shows (Flow.swift).

/// The bundle every step after the first reads: the email typed on the first screen.
enum SignUpBundle {
    static let email = NavigationBundleSpecRow("email", type: .string)
    static let spec = NavigationBundleSpec("SignUp", rows: email)

    static func with(email: String) -> NavigationBundle {
        spec.toBundle { _ in SignUpBundle.email.value(email) }
    }
}

/// From the email screen: on to the password, with the email.
enum EmailNavigation: NavigationAction {
    case password(NavigationBundle)

    var bundle: NavigationBundle? {
        switch self {
        case .password(let bundle): bundle
        }
    }
}

/// From the password screen: back to the email (pop), or on to the confirmation (presented), with the email.
enum PasswordNavigation: NavigationAction {
    case back
    case confirm(NavigationBundle)

    var bundle: NavigationBundle? {
        switch self {
        case .back: nil
        case .confirm(let bundle): bundle
        }
    }
}

/// From the confirmation: close it (dismiss the modal).
enum ConfirmNavigation: NavigationAction {
    case close

    var bundle: NavigationBundle? { nil }
}
