import MainlineLoop

/// An initialized subject whose `nil` values are replaced by a default: posting `nil` means "back to the default".
///
/// Must be used on the main actor, except the `post` and `set` methods, which any thread may call.
///
/// Posting `nil` while the value is already the default notifies no one (when `T` is `Equatable`).
///
/// ```swift
/// let title = DefaultSubject<String>(nil, default: "Untitled")
/// title.update(nil)       // still "Untitled", silent
/// title.update("Report")  // "Report"
/// title.update(nil)       // "Untitled" again
/// ```
@MainActor
public final class DefaultSubject<T: Sendable>: InitializedSubject<T> {
    /// The value `nil` stands for.
    public nonisolated let defaultValue: T

    /// Creates a subject holding `initial`, or the default when `initial` is `nil`.
    ///
    /// - Parameters:
    ///   - initial: The first value; `nil` for the default.
    ///   - defaultValue: The value that replaces `nil`.
    ///   - loop: The loop observers are called on.
    public init(_ initial: T?, default defaultValue: T, loop: any Loop = MainLoop.main) {
        self.defaultValue = defaultValue
        super.init(initial ?? defaultValue, loop: loop)
    }

    /// Sets the value now (the default for `nil`) and notifies the observers unless it is unchanged.
    ///
    /// - Parameter value: The new value, or `nil` for the default.
    public override func update(_ value: T?) {
        super.update(value ?? defaultValue)
    }
}

extension DefaultSubject {
    /// Sets the value (the default for `nil`) on the loop, soon. Thread-safe; never blocks.
    ///
    /// - Parameter value: The new value, or `nil` for the default.
    /// - Returns: `false` if the loop has stopped.
    @discardableResult
    public nonisolated func post(_ value: T?) -> Bool {
        post(value ?? defaultValue)
    }

    /// Sets the value (the default for `nil`) on the loop and returns once it has been applied.
    ///
    /// - Parameter value: The new value, or `nil` for the default.
    /// - Returns: `false` if the loop has stopped and nothing was applied.
    @discardableResult
    public nonisolated func set(_ value: T?) async -> Bool {
        await set(value ?? defaultValue)
    }
}
