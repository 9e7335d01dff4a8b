import MainlineLoop

/// The one bridge from a value observer to an `AsyncStream`: the `values` of the observables and subjects and
/// `DataCache.values(skipInitial:)`. An `AsyncStream` fed by an observer, keeping only the newest unconsumed value (the
/// values are state: a slow consumer skips intermediate ones, never the latest); the observer is disposed when the
/// stream terminates. Must be called on the main actor; the stream may be iterated anywhere.
///
/// (Events and mailboxes have their own sequences on `_EventWakeups`, which buffer nothing: a mailbox's values wait in
/// the mailbox, under its capacity, until the consumer takes them — a contract an `AsyncStream` cannot keep.)
///
/// - Parameters:
///   - skipInitial: `true` to leave out the first value, the one `observe` delivers at once (the current value).
///   - finishers: Where the stream's continuation is kept so that its owner can finish it when it goes
///     (``_StreamFinishers/finishAll()``); `nil` when the stream ends only with its consumer.
///   - observe: Registers the observer, returning what ends it.
/// - Returns: The stream.
@MainActor
package func _conflatingStream<Element: Sendable>(
    of _: Element.Type,
    skipInitial: Bool = false,
    finishers: _StreamFinishers<Element>? = nil,
    observe: (@escaping @MainActor (Element) -> Void) -> Disposable
) -> AsyncStream<Element> {
    let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(1))
    var skipping = skipInitial
    let disposable = observe { value in
        // The first call is the current value, made before `observe` returns.
        if skipping {
            skipping = false
        } else {
            continuation.yield(value)
        }
    }
    let id = finishers?.add(continuation)
    continuation.onTermination = { _ in
        disposable.dispose()
        if let id { finishers?.remove(id) }
    }
    return stream
}

/// The continuations of the streams an owner (a `DataCache`) has handed out through ``_conflatingStream(of:skipInitial:finishers:observe:)``,
/// so that releasing the owner finishes them.
///
/// All operations on `_StreamFinishers` are thread-safe: a stream terminates on the thread of the task that iterated
/// it.
package final class _StreamFinishers<Element: Sendable>: Sendable {
    // Protected by `_Locked`'s lock.
    private let state = _Locked((nextID: 0, continuations: [Int: AsyncStream<Element>.Continuation]()))

    /// Creates an empty set. Thread-safe.
    package init() {}

    /// Registers `continuation` and returns the id that removes it.
    func add(_ continuation: AsyncStream<Element>.Continuation) -> Int {
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

    /// Finishes every registered stream (each still hands out its pending value first). Outside the lock: finishing
    /// runs `onTermination`, which removes.
    package func finishAll() {
        let continuations = state.withLock { state in
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
