import MainlineObservables

extension DataCache {
    /// The model's values as an `AsyncSequence`: the current one first (unless `skipInitial`), then each change.
    ///
    /// Must be called on the main actor; the sequence may be iterated from any task (see `ObservedValues`).
    ///
    /// Each call makes a new sequence, observing from the moment of the call. The sequence conflates, because the
    /// model is state: a consumer slower than the changes skips intermediate values, never the latest. It finishes
    /// when the cache is released, after the newest value not yet handed out; cancelling the task that iterates it
    /// finishes it and ends the observation.
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
    /// - Returns: The sequence.
    public func values(skipInitial: Bool = false) -> ObservedValues<Model> {
        ObservedValues(skipInitial: skipInitial, owner: sequences) { onNext in subject.observe(onNext) }
    }
}
