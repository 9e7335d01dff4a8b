#if Postgres
/// What a publisher's streams are waiting for: the state of group commit, kept under one lock.
extension StreamPublisher {
    /// Every stream's queue, the deadline watch and the counts. Protected by `StreamPublisher.queues`'s lock.
    struct _Queues {
        var streams: [String: _StreamQueue] = [:]
        var nextID = 0
        var counts = Counts()
        /// The task that fails publishes whose deadline passed, and when it wakes next; `nil` while none waits.
        var watch: (generation: Int, wake: ContinuousClock.Instant)?
        var watchTask: Task<Void, Never>?
        var watchGeneration = 0
    }

    /// One stream's publishes: those waiting for their turn, and the batch being committed. A stream has a queue
    /// while its commit task runs (it removes it when it finds nothing more to commit).
    struct _StreamQueue {
        /// Waiting for their turn, in arrival order (which becomes the stream's order).
        var pending: [_Publish] = []
        /// The batch the commit task is committing, if any.
        var inFlight: _Batch?
    }

    /// One call waiting for its commit: one event, or a `publish(contentsOf:)` batch (never split).
    struct _Publish {
        let id: Int
        let messages: [Message]
        let bytes: Int
        let deadline: ContinuousClock.Instant
        let timeout: Duration
        let continuation: CheckedContinuation<[Int64], any Error>
    }

    /// The publishes of one statement.
    struct _Batch {
        /// Those still waiting for the answer, by id (a deadline takes a publish out).
        var waiting: [Int: _Publish]
        /// Whether the pool handed over a connection: from then on the task is never cancelled (a statement cancelled
        /// half-way can leave the connection in a transaction).
        var leased = false
        /// Whether the statement was sent: from then on, a publish answered before the statement's end may commit.
        var sent = false
        /// The task running the statement; cancelled while still waiting for a connection when nobody waits for it.
        var task: Task<Written, any Error>?
    }

    /// Takes from `pending` the next batch: the first publish, and those after it while the batch stays within
    /// `options`' bounds.
    static func nextBatch(from pending: inout [_Publish], options: Options) -> [_Publish] {
        guard let first = pending.first else { return [] }
        var count = first.messages.count
        var bytes = first.bytes
        var end = 1
        while end < pending.count {
            let next = pending[end]
            if count + next.messages.count > options.maximumBatchCount
                || bytes + next.bytes > options.maximumBatchBytes
            {
                break
            }
            count += next.messages.count
            bytes += next.bytes
            end += 1
        }
        let batch = Array(pending[..<end])
        pending.removeFirst(end)
        return batch
    }
}
#endif
