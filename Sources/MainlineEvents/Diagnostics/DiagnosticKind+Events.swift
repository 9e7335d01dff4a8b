import MainlineLoop

extension DiagnosticKind {
    /// A value type was added to an ``ObserverHub``; observers must be class instances. It was not added (a
    /// value can never be held weakly), so it is never called.
    public static let observerIsValue = DiagnosticKind(rawValue: "observer-is-value")

    /// The same observer instance was added twice to one hub or event. Release builds add it again, so it is
    /// called twice per round, as upstream MMMObservables does.
    public static let observerAddedTwice = DiagnosticKind(rawValue: "observer-added-twice")

    /// An observer was removed that was never added (or was removed already). Release builds ignore the call.
    public static let observerNotAdded = DiagnosticKind(rawValue: "observer-not-added")

    /// An observer was deallocated without being removed first. Found at the next notification round of its hub,
    /// or at an add or remove once those since the last look reach half its observers; release builds drop the dead
    /// entry.
    public static let observerNotRemoved = DiagnosticKind(rawValue: "observer-not-removed")

    /// A hub or synchronous event started a notification round while one was already running on it (an observer
    /// triggered the event it observes). Release builds run the nested round depth-first, as upstream does; a
    /// `LazySimpleEvent` never nests.
    public static let nestedNotification = DiagnosticKind(rawValue: "nested-notification")

    /// A `BoundedMailbox` was created with a capacity below 1; it was given a capacity of 1.
    public static let mailboxCapacity = DiagnosticKind(rawValue: "mailbox-capacity")
}
