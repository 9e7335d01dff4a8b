import Dispatch
import MainlineEvents
import MainlineLoop

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One of the ways of handing values from producer threads to the main loop that the mailbox group compares.
enum MailboxPeer: String, CaseIterable, Sendable {
    /// `LatestMailbox<Int>`: keeps the newest value; the consumer sees as many as it keeps up with.
    case latest = "LatestMailbox"
    /// `BoundedMailbox<Int>(capacity: 1,024, overflow: .dropOldest)`: lossy, never makes a producer wait.
    case boundedDropOldest = "BoundedMailbox 1,024 dropOldest"
    /// `BoundedMailbox<Int>(capacity: 1,024, overflow: .reject)`, and a producer that is refused yields its time
    /// slice and places the value again: lossless, with back-pressure.
    case boundedReject = "BoundedMailbox 1,024 reject+retry"
    /// `KeyedMailbox<Int, Int>` over 64 keys (value `v` under key `v % 64`): the latest value per key.
    case keyed = "KeyedMailbox 64 keys"
    /// `MainLoop.main.post { consume(value) }` for every value: the unbounded queue the mailboxes replace.
    case post = "MainLoop.main.post per value"
}

/// One peer of the mailbox group, with its consumer: an observer of the mailbox's event on the main loop that takes
/// what is waiting on each notification (for `post`, the posted closures themselves are the consumer).
///
/// Created on the main actor; ``produce(_:)``, ``placeEndMarker()`` and ``counts`` are thread-safe.
@MainActor
final class MailboxWorkload {
    nonisolated static let capacity = 1_024
    nonisolated static let keyCount = 64

    nonisolated let peer: MailboxPeer
    private nonisolated let latest: LatestMailbox<Int>?
    private nonisolated let bounded: BoundedMailbox<Int>?
    private nonisolated let keyed: KeyedMailbox<Int, Int>?
    /// The consumer's observer.
    private var token: SimpleEventToken?

    init(peer: MailboxPeer) {
        self.peer = peer
        latest = peer == .latest ? LatestMailbox() : nil
        switch peer {
        case .boundedDropOldest: bounded = BoundedMailbox(capacity: Self.capacity, overflow: .dropOldest)
        case .boundedReject: bounded = BoundedMailbox(capacity: Self.capacity, overflow: .reject)
        default: bounded = nil
        }
        keyed = peer == .keyed ? KeyedMailbox() : nil

        // The consumer: takes on each notification, as the mailboxes' documentation shows.
        if let latest {
            latest.event.addObserver(&token) { _ in
                if let value = latest.take() { mailboxConsumer.receive(value) }
            }
        } else if let bounded {
            bounded.event.addObserver(&token) { _ in
                for value in bounded.takeAll() { mailboxConsumer.receive(value) }
            }
        } else if let keyed {
            keyed.event.addObserver(&token) { _ in
                for (_, value) in keyed.takeAll() { mailboxConsumer.receive(value) }
            }
        }
    }

    /// One producer's share of a run: places the values `0 ..< count`. Thread-safe.
    nonisolated func produce(_ count: Int) {
        switch peer {
        case .latest:
            let latest = latest!
            for value in 0..<count { latest.place(value) }
        case .boundedDropOldest:
            let bounded = bounded!
            for value in 0..<count { bounded.place(value) }
        case .boundedReject:
            let bounded = bounded!
            for value in 0..<count {
                while !bounded.place(value) { sched_yield() }
            }
        case .keyed:
            let keyed = keyed!
            for value in 0..<count { keyed.place(key: value % Self.keyCount, value: value) }
        case .post:
            for value in 0..<count { MainLoop.main.post { mailboxConsumer.receive(value) } }
        }
    }

    /// Places ``MailboxConsumer/endMarker``; called once every producer has finished, so it is the last value placed
    /// and no overflow policy or newer value can drop it (with `.reject`, it is retried like any value). Thread-safe.
    nonisolated func placeEndMarker() {
        let marker = MailboxConsumer.endMarker
        switch peer {
        case .latest: latest!.place(marker)
        case .boundedDropOldest: bounded!.place(marker)
        case .boundedReject: while !bounded!.place(marker) { sched_yield() }
        case .keyed: keyed!.place(key: marker, value: marker)
        case .post: MainLoop.main.post { mailboxConsumer.receive(marker) }
        }
    }

    /// The mailbox's books; for `post`, what they would be for a queue that delivers everything. Thread-safe.
    nonisolated var counts: MailboxCounts {
        if let latest { return latest.counts }
        if let bounded { return bounded.counts }
        if let keyed { return keyed.counts }
        let received = mailboxConsumer.received
        return MailboxCounts(accepted: received, delivered: received)
    }
}

/// The consumer's side of the mailbox group: counts the values the main loop received and wakes the benchmark
/// thread when the end marker arrives.
///
/// `MailboxConsumer` is **not** thread-safe by itself; it follows a fixed protocol, like ``Countdown``: only the
/// main actor calls ``receive(_:)``; the benchmark thread reads ``received`` before a run's first value is placed
/// and after ``waitForEnd()`` returned, when the consumer has nothing left to receive (a notification that finds
/// its mailbox empty receives nothing).
final class MailboxConsumer: @unchecked Sendable {
    // @unchecked Sendable: `received` follows the protocol above; the semaphore orders its last write before the
    // benchmark thread's read.
    /// The value that ends a run. Producers place only non-negative values.
    static let endMarker = -1

    /// Values received, the end markers not included.
    private(set) var received = 0
    private let end = DispatchSemaphore(value: 0)

    /// One value reached the main loop.
    @inline(never)
    func receive(_ value: Int) {
        if value == Self.endMarker {
            end.signal()
        } else {
            received &+= 1
        }
    }

    /// Blocks until the consumer has received an end marker.
    func waitForEnd() {
        end.wait()
    }
}

/// The consumer of every mailbox peer. A global `let`, so that the `post` peer's closures capture the value only.
let mailboxConsumer = MailboxConsumer()
