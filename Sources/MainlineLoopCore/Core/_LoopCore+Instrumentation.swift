/// Instrumentation of the core: metrics per iteration, the watchdog's stamps, named mailboxes' drops.
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
                recorder: scheduler.recorder,
                watchesMainActor: watchesMainActor
            )
        }
        monitor = instruments?.watchdog?.monitor
        scheduler.recorder.monitorForInspection = monitor
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

    /// Runs work of the driver's own (draining the main dispatch queue in owner mode) as part of the iteration:
    /// measured and stamped like the core's phases.
    package func runExternal(_ label: StaticString, _ body: () -> Void) {
        progress.enter(.posts)
        // The flight recorder times a drain as one piece of work: it is the loop's busy time, as much as its posts.
        var run = scheduler.recorder.beginRun(.mainQueue)
        defer {
            scheduler.recorder.ran(&run, site: Self.mainQueueSite)
            scheduler.recorder.endRun(&run)
        }
        guard let instruments else { return body() }
        monitor?.begin(label)
        instruments.ranOtherWork = true
        measured(instruments, body)
    }

    /// What the recorder calls a main-queue drain.
    private static let mainQueueSite = LoopSite(label: "main queue")

    /// The loop is about to wait for I/O or time: the watchdog must not count the wait as a stall.
    @inline(__always)
    package func willWait() {
        scheduler.willWait()
        monitor?.idle()
    }

    /// The iteration is over (its settle phase ran): hands its totals to the metrics and tells the watchdog the loop
    /// is idle.
    package func endIteration() {
        scheduler.endIteration()
        monitor?.idle()
        if !dropSources.isEmpty { recordDrops() }
        guard let instruments else { return }
        instruments.endIteration(
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

    /// Runs a phase, adding its duration to the iteration's busy time (once: a phase inside a phase, such as a
    /// `TestLoop` signal delivered by a post, is already being measured).
    func measured<R>(_ instruments: _LoopInstruments, _ body: () -> R) -> R {
        guard !isMeasuring, let clock else { return _RunningLoop.with(owner, body) }
        isMeasuring = true
        defer { isMeasuring = false }
        let start = clock()
        let result = _RunningLoop.with(owner, body)
        instruments.busy += (clock() - start).mainlineNanoseconds
        return result
    }
}
