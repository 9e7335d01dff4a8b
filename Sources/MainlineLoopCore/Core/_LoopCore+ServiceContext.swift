/// Posting through the core with the poster's `ServiceContext` carried along, when the loop's switch is on.
///
/// Thread-safe, like ``_LoopCore/posts``. Timers carry the context in ``_LoopCore/schedule(after:now:site:_:)`` and
/// ``_LoopCore/scheduleRepeating(every:now:site:_:)``; labelled posts are posts whose site has a label.
extension _LoopCore {
    /// Enqueues `body`, wrapped to run with the current `ServiceContext` when the switch is on and one is current.
    @inline(__always)
    package nonisolated func post(
        _ body: consuming @escaping @MainActor @Sendable () -> Void,
        site: LoopSite
    ) -> _JobQueue.EnqueueResult {
        posts.enqueue(_JobQueue.mainActorJob(serviceContext.carry(post: body)), site: site)
    }
}
