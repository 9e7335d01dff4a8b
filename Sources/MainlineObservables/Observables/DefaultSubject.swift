import MainlineLoop

/// An initialized subject whose `nil` values are replaced by a default: posting `nil` means "back to the default".
///
/// Must be used on the main actor, except the `post` and `set` methods, which any thread may call.
///
/// Posting `nil` while the value is already the default notifies no one (when `T` is `Equatable`).
///
/// ```swift
/// let title = DefaultSubject<String>(nil, default: "Untitled")
/// title.update(orDefault: nil)       // still "Untitled", silent
/// title.update(orDefault: "Report")  // "Report"
/// title.post(nil)                    // "Untitled" again, on the loop
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
    /// (Not an `update(_:)` overload: that would override the inherited one and make every update a dynamic call.)
    ///
    /// - Parameter value: The new value, or `nil` for the default.
    @inlinable
    public func update(orDefault value: T?) {
        update(value ?? defaultValue)
    }
}

extension DefaultSubject {
    /// Sets the value (the default for `nil`) on the loop, soon. Thread-safe; never blocks.
    ///
    /// - Parameter value: The new value, or `nil` for the default.
    /// - Returns: `false` if the loop has stopped.
    @inlinable @discardableResult
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
