import Foundation
import StreamWire

/// What the measuring process received in one phase: each event's stamp and when it arrived, and the books that say
/// whether anything was lost, repeated or out of order.
///
/// All operations on `DeliveryTally` are thread-safe (protected by `lock`): the Mainline peer records on the main
/// loop, the `NOTIFY` peer on its listening task, and the phase reads from the main actor.
final class DeliveryTally: @unchecked Sendable {
    /// One delivery: the payload's stamp, ``monotonicNanoseconds()`` when the receiver saw it, and (Mainline) when the
    /// subscriber's reader placed it into the mailbox (0 for `NOTIFY`).
    struct Delivery {
        var stamp: Stamp
        var placedAt: Int64
        var receivedAt: Int64
    }

    /// The books of a finished phase.
    struct Books {
        /// Distinct events received.
        var distinct = 0
        /// Events received more than once (each extra time counts).
        var duplicated = 0
        /// Mainline: deliveries whose stream sequence was not the previous one plus 1; `nil` for `NOTIFY`, which has no
        /// sequence to check against.
        var outOfOrder: Int?
        /// Mainline: resyncs placed (must be 0: nothing is pruned).
        var resyncs = 0
        /// Payloads that did not parse.
        var malformed = 0
    }

    private let lock = NSLock()
    /// Protected by `lock`.
    private var deliveries: [Delivery] = []
    /// Protected by `lock`. `seen[i]`: whether event `i` arrived.
    private var seen: [Bool] = []
    /// Protected by `lock`.
    private var books: Books
    /// Protected by `lock`. The last stream sequence delivered (Mainline).
    private var lastSequence: Int64 = 0

    /// Creates empty books; `checksSequence` for a peer whose deliveries carry a gapless sequence from 1.
    init(checksSequence: Bool) {
        books = Books(outOfOrder: checksSequence ? 0 : nil)
        deliveries.reserveCapacity(1 << 16)
    }

    /// Records the payload's `stamp` (`nil`: it did not parse) received at `receivedAt`, with its stream sequence and
    /// when it was placed when the peer has them.
    func record(_ stamp: Stamp?, sequence: Int64? = nil, placedAt: Int64 = 0, at receivedAt: Int64) {
        lock.withLock {
            guard let stamp else {
                books.malformed += 1
                return
            }
            if let sequence {
                if sequence != lastSequence + 1 { books.outOfOrder = (books.outOfOrder ?? 0) + 1 }
                lastSequence = sequence
            }
            if stamp.index >= seen.count {
                seen.append(contentsOf: repeatElement(false, count: stamp.index + 1 - seen.count))
            }
            if seen[stamp.index] {
                books.duplicated += 1
                return
            }
            seen[stamp.index] = true
            books.distinct += 1
            deliveries.append(Delivery(stamp: stamp, placedAt: placedAt, receivedAt: receivedAt))
        }
    }

    /// Counts a resync (Mainline).
    func recordResync() {
        lock.withLock { books.resyncs += 1 }
    }

    /// Distinct events received so far.
    var distinct: Int { lock.withLock { books.distinct } }

    /// The books and every first delivery, in the order received.
    func snapshot() -> (Books, [Delivery]) {
        lock.withLock { (books, deliveries) }
    }
}
