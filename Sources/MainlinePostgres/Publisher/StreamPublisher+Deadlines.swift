#if Postgres
/// Deadlines: a publish is answered by its deadline at the latest, and one whose caller gave up is never sent
/// afterwards.
///
/// One watch task per publisher sleeps until the earliest deadline of its publishes and tells the machine
/// (`_GroupCommit.deadlinesPassed(generation:now:)`), which fails those whose deadline passed: one still queued, or in
/// a batch whose statement was not sent yet (waiting for a connection), fails with `mayHaveCommitted: false` and is
/// left out of the statement; one whose statement was sent fails with `mayHaveCommitted: true` (the database itself
/// refuses to commit the statement once the batch's earliest deadline passed, by its clock, since it received it).
/// The watch costs nothing per publish: it wakes at a deadline, which a healthy publish never reaches, and then
/// sleeps until the earliest one still waiting. A publish whose deadline comes before the watch's wake replaces the
/// watch (a new generation).
extension StreamPublisher {
    /// Starts the watch of `generation`, which wakes first at `wake`. Thread-safe.
    func watch(generation: Int, wake: ContinuousClock.Instant) {
        let task = Task { [weak self] in
            var wake = wake
            while true {
                do {
                    try await Task.sleep(until: wake, clock: .continuous)
                } catch {
                    return  // replaced by a watch that wakes sooner
                }
                guard let self else { return }
                let (actions, next) = self.groupCommit.withLock {
                    $0.deadlinesPassed(generation: generation, now: .now)
                }
                self.perform(actions)
                guard let next else { return }
                wake = next
            }
        }
        perform(groupCommit.withLock { $0.watchStarted(task, generation: generation) })
    }
}
#endif
