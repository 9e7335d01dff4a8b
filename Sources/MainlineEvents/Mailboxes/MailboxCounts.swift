/// What a thread-safe mailbox did with the values placed into it: the books that show nothing was lost.
///
/// `MailboxCounts` is a value type; all operations on it are thread-safe.
///
/// Every value placed is either rejected (the producer was told `false`) or accepted; every accepted value is
/// eventually delivered (taken by the consumer) or dropped (replaced by a newer one, or discarded by an overflow
/// policy), and until then it is ``pending``:
///
///     placed    = accepted + rejected
///     accepted  = delivered + dropped + pending
///
/// A value sent to a `BoundedMailbox` with the `.suspend` policy is counted when its sender stops waiting: as
/// accepted once it is in the mailbox, as rejected if the sender threw instead (cancelled, or the loop stopped).
/// Meanwhile its sender is counted in ``waiting``, and the value in none of the other counts:
///
///     sent      = accepted + rejected + waiting
public struct MailboxCounts: Sendable, Hashable, CustomStringConvertible {
    /// Values the mailbox took responsibility for.
    public var accepted = 0
    /// Values refused; their producers got `false` back, or an error from `send` (only `BoundedMailbox`, with the
    /// `.reject` or `.suspend` policy).
    public var rejected = 0
    /// Accepted values discarded without being delivered: replaced by a newer value, or by an overflow policy.
    public var dropped = 0
    /// Values the consumer took out.
    public var delivered = 0
    /// Senders waiting for room right now, their values not yet accepted (only `BoundedMailbox` with the `.suspend`
    /// policy).
    public var waiting = 0

    /// Creates counts; all zero by default.
    public init(accepted: Int = 0, rejected: Int = 0, dropped: Int = 0, delivered: Int = 0, waiting: Int = 0) {
        self.accepted = accepted
        self.rejected = rejected
        self.dropped = dropped
        self.delivered = delivered
        self.waiting = waiting
    }

    /// Accepted values still waiting in the mailbox.
    public var pending: Int { accepted - dropped - delivered }

    /// `accepted 10, rejected 0, dropped 3, delivered 6, pending 1`, and `, waiting 2` when senders wait.
    public var description: String {
        let counts =
            "accepted \(accepted), rejected \(rejected), dropped \(dropped), delivered \(delivered), pending \(pending)"
        return waiting == 0 ? counts : counts + ", waiting \(waiting)"
    }
}
