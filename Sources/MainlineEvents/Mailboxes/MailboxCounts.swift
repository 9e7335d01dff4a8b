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
public struct MailboxCounts: Sendable, Hashable, CustomStringConvertible {
    /// Values the mailbox took responsibility for.
    public var accepted = 0
    /// Values refused; their producers got `false` back (only `BoundedMailbox` with the `.reject` policy).
    public var rejected = 0
    /// Accepted values discarded without being delivered: replaced by a newer value, or by an overflow policy.
    public var dropped = 0
    /// Values the consumer took out.
    public var delivered = 0

    /// Creates counts; all zero by default.
    public init(accepted: Int = 0, rejected: Int = 0, dropped: Int = 0, delivered: Int = 0) {
        self.accepted = accepted
        self.rejected = rejected
        self.dropped = dropped
        self.delivered = delivered
    }

    /// Accepted values still waiting in the mailbox.
    public var pending: Int { accepted - dropped - delivered }

    /// `accepted 10, rejected 0, dropped 3, delivered 6, pending 1`.
    public var description: String {
        "accepted \(accepted), rejected \(rejected), dropped \(dropped), delivered \(delivered), pending \(pending)"
    }
}
