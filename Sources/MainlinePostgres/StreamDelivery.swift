#if Postgres
/// What a subscription places in its mailbox: the next event of the stream, or word that events were lost.
///
/// All operations on `StreamDelivery` are thread-safe (it is a value).
public enum StreamDelivery<Value: Sendable>: Sendable {
    /// The next event, in sequence order; each sequence is placed once.
    case event(StreamEvent<Value>)
    /// Events the subscription had not read were deleted (retention) or the stream went back (its tables were
    /// recreated): reload your state from its source, then carry on with the events that follow. Placed once per
    /// gap.
    case resync(StreamResync)
}
#endif
