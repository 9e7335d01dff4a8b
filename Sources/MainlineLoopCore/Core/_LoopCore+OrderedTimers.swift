/// The timer phase of a loop with a ``_ReadyOrder`` (a `TestLoop` with a schedule): the same phase as
/// `_LoopCore.fireDueTimers(now:)` — timers due now and scheduled before the phase began, earliest deadline first —
/// except that timers due at the same instant fire in the order's choice instead of their scheduling order.
///
/// Must be used on the main actor, like the core.
extension _LoopCore {
    /// The ordered timer phase; returns how many fired.
    ///
    /// The timers of one deadline leave the heap together and wait in a group while the order picks among them. A
    /// callback that cancels one still waiting wins, as it would against the heap: the group skips cancelled timers.
    /// (While they wait, ``scheduledTimerCount`` does not count them.)
    func fireDueTimers(in order: any _ReadyOrder, now: LoopInstant) -> Int {
        var group: [ScheduledTask] = []
        return scheduler.runTimers(
            sequenceMark: timers.sequenceMark,
            popDue: { (mark: UInt64) -> ScheduledTask? in
                while true {
                    group.removeAll { $0.isCancelled }
                    if group.isEmpty {
                        guard let first = timers.popDue(now: now, scheduledBefore: mark) else { return nil }
                        group = [first]
                        // `first` is the earliest due: whatever else is due at its deadline shares it.
                        while let tied = timers.popDue(now: first.deadline, scheduledBefore: mark) {
                            group.append(tied)
                        }
                        continue
                    }
                    let candidates = group.map { _ReadyCandidate(id: _ReadyCandidate.id(of: $0), site: $0.site) }
                    let pick = min(max(order.choose(.timer, among: candidates), 0), group.count - 1)
                    let task = group.remove(at: pick)
                    if task.commitFiring() { return task }
                }
            },
            site: { (task: ScheduledTask) in task.site },
            fire: { (task: ScheduledTask) in
                instruments?.timerFired(lateBy: (now - task.deadline).mainlineNanoseconds)
                fire(task, now: now)
            }
        )
    }
}
