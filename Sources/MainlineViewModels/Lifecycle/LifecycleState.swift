/// Where a ``BaseViewModel`` is in its life: `initialized → (resumed ⇄ paused)* → cleared`.
///
/// `LifecycleState` is a value type; all operations on it are thread-safe.
public enum LifecycleState: Sendable, Hashable, CustomStringConvertible {
    /// Created; not yet shown.
    case initialized
    /// Shown: its host is visible (a screen on display, a connection that can take data).
    case resumed
    /// Hidden for now; may resume again.
    case paused
    /// Finished for good.
    case cleared

    /// The state's name.
    public var description: String {
        switch self {
        case .initialized: "initialized"
        case .resumed: "resumed"
        case .paused: "paused"
        case .cleared: "cleared"
        }
    }
}

/// A lifecycle request that any thread can post to a view model; see ``BaseViewModel/post(_:)``.
///
/// `LifecycleEvent` is a value type; all operations on it are thread-safe.
public enum LifecycleEvent: Sendable, Hashable {
    /// ``BaseViewModel/didResume()``.
    case resume
    /// ``BaseViewModel/didPause()``.
    case pause
    /// ``BaseViewModel/clear()``.
    case clear
}
