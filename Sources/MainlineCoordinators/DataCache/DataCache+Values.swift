import MainlineLoop

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
        let (stream, continuation) = AsyncStream.makeStream(of: Model.self, bufferingPolicy: .bufferingNewest(1))
        var skipping = skipInitial
        let observation = subject.observe { value in
            // The first call is the current value, made before `observe` returns.
            if skipping {
                skipping = false
            } else {
                continuation.yield(value)
            }
        }
        let id = streams.add(continuation)
        continuation.onTermination = { [streams] _ in
            observation.dispose()
            streams.remove(id)
        }
        return stream
    }
}

extension DataCache {
    /// The continuations of the streams a cache has handed out, so that releasing the cache ends them.
    ///
    /// All operations on `_Streams` are thread-safe: a stream terminates on the thread of the task that iterated it.
    final class _Streams: Sendable {
        // Protected by `_Locked`'s lock.
        private let state = _Locked((nextID: 0, continuations: [Int: AsyncStream<Model>.Continuation]()))

        /// Registers `continuation` and returns the id that removes it.
        func add(_ continuation: AsyncStream<Model>.Continuation) -> Int {
            state.withLock { state in
                defer { state.nextID += 1 }
                state.continuations[state.nextID] = continuation
                return state.nextID
            }
        }

        /// Forgets the continuation registered as `id` (its stream has terminated).
        func remove(_ id: Int) {
            state.withLock { _ = $0.continuations.removeValue(forKey: id) }
        }

        /// Finishes every registered stream. Outside the lock: finishing runs `onTermination`, which removes.
        func finishAll() {
            let continuations = state.withLock { state in
                defer { state.continuations.removeAll() }
                return Array(state.continuations.values)
            }
            for continuation in continuations { continuation.finish() }
        }
    }
}
