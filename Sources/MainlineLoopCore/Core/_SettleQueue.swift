/// The pending notifications of a loop's settle phase, bucketed by dependency height.
///
/// Must be used on the main actor (protected by the loop). See ``SettleNotification`` for the rules.
@MainActor
package final class _SettleQueue {
    nonisolated init() {}

    private struct Entry {
        var notification: SettleNotification
        var generation: UInt64
    }

    // Unchecked exclusivity on the stored state below that every iteration touches: it is read and written in place,
    // never held across a call out (the type's comment says what serializes it); the dynamic checks were a measurable
    // part of an iteration (Benchmarks/HISTORY.md, "Speed").
    /// Entries of the current round by height. Heights are small (0 for sources, +1 per derived layer).
    @exclusivity(unchecked) private var buckets: [[Entry]] = []
    /// Requests made during a round at or below the height being delivered: they wait for the next round.
    @exclusivity(unchecked) private var deferred: [Entry] = []
    /// The height being delivered, or `nil` outside a round.
    @exclusivity(unchecked) private var cursor: Int?
    /// Entries in `buckets` and `deferred`, live or withdrawn.
    @exclusivity(unchecked) private var entryCount = 0
    /// The lowest height that may hold an entry.
    @exclusivity(unchecked) private var lowestHeight = Int.max

    /// How many notifications have been delivered so far (read by the loop's instrumentation).
    @exclusivity(unchecked) private(set) var deliveries = 0

    /// Whether anything is queued (a withdrawn entry counts until the loop passes it).
    var hasPending: Bool { entryCount > 0 }

    /// How many notifications wait for delivery (withdrawn ones not counted), for a snapshot.
    ///
    /// - Complexity: O(n) in the entries queued.
    package var pendingCount: Int {
        buckets.reduce(0) { $0 + $1.count(where: isLive) } + deferred.count(where: isLive)
    }

    /// Marks `notification` pending. Returns `false` when it already was.
    package func request(_ notification: SettleNotification) -> Bool {
        guard !notification.isPending else { return false }
        if notification.height < 0 {
            Diagnostics.report(
                .negativeSettleHeight,
                "A SettleNotification was requested with height \(notification.height); heights start at 0 (sources) and grow by one per derived layer. Delivering it at height 0."
            )
            notification.height = 0
        }
        notification.isPending = true
        notification.generation &+= 1
        let entry = Entry(notification: notification, generation: notification.generation)
        entryCount += 1
        if let cursor, notification.height <= cursor {
            deferred.append(entry)
        } else {
            place(entry)
        }
        return true
    }

    /// Runs up to `rounds` rounds, unstamped (shutdown's). Returns how many rounds ran.
    @discardableResult
    package func settle(rounds: Int) -> Int {
        var unstamped = _PhaseRun(kind: .settle, monitor: nil)
        return settle(rounds: rounds, run: &unstamped, probe: nil)
    }

    /// Runs up to `rounds` rounds as the phase `run`. Returns how many rounds ran.
    ///
    /// - Parameters:
    ///   - probe: Stamps each delivery, with its notification's site, into the phase (`_LoopProbe`).
    ///   - order: Where several notifications of one height are pending, which is delivered next; `nil` (a real
    ///     loop): request order. Read once per height (see `_ReadyOrder`).
    package func settle(
        rounds: Int,
        run: inout _PhaseRun,
        probe: _LoopProbe?,
        order: (any _ReadyOrder)? = nil
    ) -> Int {
        guard entryCount > 0, rounds > 0 else { return 0 }
        var ran = 0
        while entryCount > 0 && ran < rounds {
            runRound(probe, &run, order)
            ran += 1
        }
        return ran
    }

    /// Withdraws everything pending (used at shutdown). Returns how many live notifications were withdrawn.
    package func removeAll() -> Int {
        var live = 0
        for entry in buckets.joined() where isLive(entry) {
            entry.notification.cancel()
            live += 1
        }
        for entry in deferred where isLive(entry) {
            entry.notification.cancel()
            live += 1
        }
        buckets = []
        deferred = []
        entryCount = 0
        lowestHeight = .max
        return live
    }

    private func runRound(_ probe: _LoopProbe?, _ run: inout _PhaseRun, _ order: (any _ReadyOrder)?) {
        var height = lowestHeight
        lowestHeight = .max
        while height < buckets.count {
            cursor = height
            if !buckets[height].isEmpty {
                var batch = buckets[height]
                buckets[height] = []
                entryCount -= batch.count
                if let order {
                    while let entry = take(from: &batch, order) { deliver(entry, probe, &run) }
                } else {
                    for entry in batch where isLive(entry) { deliver(entry, probe, &run) }
                }
            }
            height += 1
        }
        cursor = nil
        let next = deferred
        deferred = []
        for entry in next { place(entry) }
    }

    @inline(__always)
    private func deliver(_ entry: Entry, _ probe: _LoopProbe?, _ run: inout _PhaseRun) {
        entry.notification.isPending = false
        deliveries &+= 1
        probe?.willRun(&run, site: entry.notification.site)
        entry.notification.deliver()
        probe?.ran(&run, site: entry.notification.site)
    }

    /// The live entry of `batch` that `order` picks, removed from it; `nil` when none is left. A delivery may withdraw
    /// the entries still waiting, so liveness is asked again before every pick.
    private func take(from batch: inout [Entry], _ order: any _ReadyOrder) -> Entry? {
        batch.removeAll { !isLive($0) }
        guard !batch.isEmpty else { return nil }
        let candidates = batch.map {
            _ReadyCandidate(id: _ReadyCandidate.id(of: $0.notification), site: $0.notification.site)
        }
        return batch.remove(at: min(max(order.choose(.settle, among: candidates), 0), batch.count - 1))
    }

    private func place(_ entry: Entry) {
        let height = entry.notification.height
        if height >= buckets.count {
            buckets.append(contentsOf: repeatElement([], count: height - buckets.count + 1))
        }
        buckets[height].append(entry)
        lowestHeight = min(lowestHeight, height)
    }

    private func isLive(_ entry: Entry) -> Bool {
        entry.notification.isPending && entry.notification.generation == entry.generation
    }
}
