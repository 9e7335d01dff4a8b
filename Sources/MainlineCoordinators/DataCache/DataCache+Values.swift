import MainlineObservables

extension DataCache {
    /// The model's values as an `AsyncSequence`: the current one first (unless `skipInitial`), then each change.
    ///
    /// Must be called on the main actor; the stream may be iterated anywhere.
    ///
    /// Each call makes a new stream, observing from the moment of the call. The stream conflates, because the model
    /// is state: a consumer slower than the changes skips intermediate values, never the latest. It ends when the
    /// cache is released; cancelling the task that iterates it ends the observation.
    ///
    /// ```swift
    /// Task {
    ///     for await library in cache.values() {   // the current value first
    ///         render(library)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter skipInitial: `true` to yield only the changes made after this call, not the current value.
    /// - Returns: The stream.
    public func values(skipInitial: Bool = false) -> AsyncStream<Model> {
        _conflatingStream(of: Model.self, skipInitial: skipInitial, finishers: streams) { yield in
            subject.observe(yield)
        }
    }
}
