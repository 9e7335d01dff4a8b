/// The post phase of a loop with a ``_ReadyOrder`` (a `TestLoop` with a schedule): the same phase as
/// `_LoopScheduler.runPosts(limit:now:phase:)` — one budget of one snapshot of the queue, the same drain-deadline
/// rule — except that the jobs of different producers run in the order's choice. Each producer's own jobs keep their
/// queue order, and work posted while the phase runs waits for a later phase, as on a real loop.
///
/// Must be called where the loop runs, like the phase it replaces.
extension _LoopScheduler {
    /// A job taken from the queue for this phase, with its producer.
    private struct Taken {
        var job: _JobQueue.Job
        var site: LoopSite
        var producer: UInt64
    }

    /// The ordered post phase; returns how many jobs ran.
    func runPosts(
        in order: any _ReadyOrder,
        limit: Int,
        now: () -> LoopInstant,
        phase: _LoopProbe.Kind
    ) -> Int {
        var run = probe.begin(phase)
        if case .notDraining = drain, posts.closed { beginDraining(posts.closingDeadline, now: now) }
        posts.refillIfDone()
        // The phase's jobs, taken up front (at most one budget, in queue order) so that the order can see them all;
        // what the budget leaves stays queued behind them for a later phase, so each producer's order holds.
        var lanes: [(producer: UInt64, jobs: [Taken])] = []
        var taken = 0
        while taken < max(limit, 0), let next = posts.next() {
            let producer = order.nextPostProducer()
            let item = Taken(job: next.job, site: next.site, producer: producer)
            if let lane = lanes.firstIndex(where: { $0.producer == producer }) {
                lanes[lane].jobs.append(item)
            } else {
                lanes.append((producer, [item]))
            }
            taken += 1
        }
        var ran = 0
        while !lanes.isEmpty {
            if case .until(let until) = drain, now() >= until {
                releaseAtDeadline(alreadyTaken: lanes.reduce(0) { $0 + $1.jobs.count })
                break
            }
            let candidates = lanes.map { _ReadyCandidate(id: $0.producer, site: $0.jobs[0].site) }
            let lane = min(max(order.choose(.post, among: candidates), 0), lanes.count - 1)
            let item = lanes[lane].jobs.removeFirst()
            if lanes[lane].jobs.isEmpty { lanes.remove(at: lane) }
            // The jobs run out of their queue order, so each names its own site (the probe's `ranPost` reads a
            // job's site from its slot in the queue).
            probe.willRun(&run, site: item.site)
            item.job()
            ran &+= 1
            probe.ran(&run, site: item.site)
        }
        probe.end(&run, count: ran)
        return ran
    }
}
