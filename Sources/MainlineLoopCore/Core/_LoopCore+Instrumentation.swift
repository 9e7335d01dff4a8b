/// Instrumentation of the core: metrics per iteration and the watchdog's stamps, both read from the phases' probe
/// (`_LoopProbe`), and named mailboxes' drops.
///
/// Must be used on the main actor, like the core. See `LoopInstrumentation` for what is reported.
extension _LoopCore {
    /// Installs `instrumentation` (replacing any before it, and stopping its watchdog), or with `nil` removes it.
    /// Ignored once the core has shut down.
    ///
    /// - Parameter watchesMainActor: Whether the watchdog also watches main-actor work that is not one of the loop's
    ///   callbacks (the main loop: see `_StallWatchdog`); a virtual-time loop's does not.
    package func instrument(_ instrumentation: LoopInstrumentation?, watchesMainActor: Bool = false) {
        guard !isShutDown else { return }
        instruments?.watchdog?.stop()
        instruments = instrumentation.map {
            _LoopInstruments(
                $0,
                deliveriesSoFar: settleDeliveries,
                progress: progress,
                recorder: scheduler.recorder,
                watchesMainActor: watchesMainActor
            )
        }
        scheduler.probe.monitor = instruments?.watchdog?.monitor
        scheduler.probe.measuresBusy = instruments != nil
    }

    /// Whether instrumentation is installed.
    package var isInstrumented: Bool { instruments != nil }

    /// Reports the drops of a named mailbox through the instrumentation, now or once one is installed.
    ///
    /// - Parameters:
    ///   - name: The mailbox's name, the `mailbox` dimension of `mainline_mailbox_drops`.
    ///   - dropped: Reads the mailbox's drop count so far; returns `nil` once the mailbox is gone.
    package func addDropSource(name: String, dropped: @escaping @Sendable () -> Int?) {
        guard !isShutDown else { return }
        dropSources.append(_DropSource(name: name, dropped: dropped))
    }

    /// Runs a drain of the dispatch main queue (owner mode) as part of the iteration: a phase of its own, stamped by
    /// the probe like the core's. The flight recorder times the drain as one piece of work: it is the loop's busy
    /// time, as much as its posts.
    package func runMainQueueDrain(_ body: () -> Void) {
        let probe = scheduler.probe
        var run = probe.begin(.mainQueue)
        probe.willRun(&run, site: Self.mainQueueSite)
        _RunningLoop.with(owner, body)
        probe.ran(&run, site: Self.mainQueueSite)
        probe.end(&run, count: 1)
    }

    /// What the recorder calls a main-queue drain.
    private static let mainQueueSite = LoopSite(label: "main queue")

    /// The loop is about to wait for I/O or time: the probe tells the watchdog, which must not count the wait as a
    /// stall.
    @inline(__always)
    package func willWait() {
        scheduler.willWait()
    }

    /// The iteration is over (its settle phase ran): the probe tells the watchdog the loop is idle, and the metrics
    /// read the iteration's totals.
    package func endIteration() {
        scheduler.endIteration()
        if !dropSources.isEmpty { recordDrops() }
        guard let instruments else { return }
        instruments.endIteration(
            probe: scheduler.probe,
            queueDepth: { postsWaitingCount },
            rejections: { budgets.maxPendingPosts == nil ? nil : posts.rejectedCount },
            deliveries: settleDeliveries,
            dropSources: &dropSources
        )
    }

    /// Keeps what named mailboxes dropped in the flight recorder, at most every 100 ms of the loop's clock (read from
    /// the recorder's last phase: no clock read of its own). Mailboxes that are gone leave the list.
    private func recordDrops() {
        let now = scheduler.recorder.lastWorkEnd
        guard now &- lastDropRecord >= 100_000_000 else { return }
        lastDropRecord = now
        var index = 0
        while index < dropSources.count {
            guard let dropped = dropSources[index].dropped() else {
                dropSources.remove(at: index)
                continue
            }
            if dropped > dropSources[index].recorded {
                scheduler.recorder.keepDrops(
                    of: dropSources[index].name,
                    count: dropped - dropSources[index].recorded,
                    at: now
                )
                dropSources[index].recorded = dropped
            }
            index += 1
        }
    }
}
