#if Postgres
import Logging
import MainlineLoop

extension StreamSubscriber {
    /// Runs `send` in a task of its own, which waits for room in `subscription`'s `.suspend` mailbox and places the
    /// delivery; then `placed` records it and the subscription is read again. Called by the reader task only.
    ///
    /// The reader skips the subscription while the task waits (nothing after the waiting delivery may be placed
    /// first) and goes on with the others, so one slow consumer holds back its own stream only, and nothing polls.
    /// The task ends when the delivery is placed; or, placing nothing, when the subscription is cancelled or the
    /// subscriber freed (the delivery is read again by whoever reads the stream next); or when the mailbox's loop
    /// stopped, which ends the subscription (nobody will take from that mailbox again), logged.
    func waitForRoom(
        _ subscription: StreamSubscription,
        send: @escaping @Sendable () async throws -> Void,
        placed: @escaping @Sendable () -> Void
    ) {
        subscription.state.withLock { state in
            guard !state.cancelled, state.waiting == nil else { return }
            state.counts.waits += 1
            // Started under the lock: the task's first look at `waiting` (when it ends) waits for this assignment.
            state.waiting = Task { [weak self, logger] in
                do {
                    try await send()
                    placed()
                    subscription.state.withLock { $0.waiting = nil }
                    self?.markDue { $0 === subscription }
                } catch is CancellationError {
                    subscription.state.withLock { $0.waiting = nil }
                } catch {
                    subscription.state.withLock { $0.waiting = nil }
                    logger.warning(
                        "stream subscriber: the subscription's mailbox takes nothing any more; the subscription ends",
                        metadata: ["stream": "\(subscription.stream)", "error": "\(error)"]
                    )
                    subscription.cancel()
                }
            }
        }
    }

    /// Gives up every wait for room: the subscriber that would read on after it is gone.
    func cancelWaits() {
        for subscription in registry.withLock({ Array($0.subscriptions.values) }) {
            subscription.state.withLock { $0.waiting?.cancel() }
        }
        for member in registry.withLock({ Array($0.groups.values) }) {
            member.waiting.withLock { $0?.cancel() }
        }
    }
}
#endif
