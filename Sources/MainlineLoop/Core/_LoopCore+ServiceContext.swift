/// Posting through the core with the poster's `ServiceContext` carried along, when the loop's switch is on.
///
/// Thread-safe, like ``_LoopCore/posts``. Timers carry the context in ``_LoopCore/schedule(after:now:label:_:)`` and
/// ``_LoopCore/scheduleRepeating(every:now:label:_:)``; labelled posts in ``_LoopCore/post(label:_:)``.
extension _LoopCore {
    /// Enqueues `body`, wrapped to run with the current `ServiceContext` when the switch is on and one is current.
    @inline(__always)
    package nonisolated func post(
        _ body: consuming @escaping @MainActor @Sendable () -> Void
    ) -> _JobQueue.EnqueueResult {
        posts.enqueue(_JobQueue.mainActorJob(serviceContext.carry(post: body)))
    }
}
