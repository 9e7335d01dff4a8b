#if Postgres
import MainlineEvents

extension BoundedMailbox {
    /// How a subscription (plain or a group member) waits for room in this mailbox: by sending, among the mailbox's
    /// waiting senders, when its overflow policy is `.suspend`; `nil` for the other policies, whose full mailbox
    /// refuses or drops at once. Thread-safe.
    var sendWaitingForRoom: (@Sendable (Value) async throws -> Void)? {
        overflowPolicy == .suspend ? { @Sendable in _ = try await self.send($0) } : nil
    }
}
#endif
