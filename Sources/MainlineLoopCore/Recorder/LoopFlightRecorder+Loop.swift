/// The loop's side of the recorder: timing runs of work, summing iterations into intervals, writing records.
///
/// Everything here must be called only where the loop runs (the main actor for `MainLoop` and `TestLoop`, the loop
/// thread for an `EventLoop`): it touches `_RecorderPen`, which nothing else does.
extension LoopFlightRecorder {
    /// Record kinds, in the low byte of a record's first payload word.
    package enum RecordKind: UInt64 {
        case interval = 1
        case slowWork = 2
    }

    /// How long the loop sums iterations into one interval record.
    static let intervalNanoseconds: UInt64 = 10_000_000
    /// Work is timed one piece at a time while pieces average at least this long; in runs below it.
    static let timeEachAbove: UInt64 = 2_000
    /// The longest run timed with one pair of clock reads.
    static let longestRun = 128

    // MARK: Phases

    /// A phase begins running work of `kind` at `now` (its probe's clock read, `_LoopProbe`), and counts a wake-up
    /// if the loop waited before it. The probe calls it only once the phase has work and the recorder records.
    @inline(__always)
    func beginRun(_ kind: WorkKind, at now: UInt64) -> _WorkRun {
        // A loop that slept for longer than an interval closes the one it was summing: what it did before the sleep
        // is written now, not when the next 10 ms of activity end.
        if !pen.iterationHadWork, pen.iterations > 0, now &- pen.lastWorkEnd >= Self.intervalNanoseconds {
            writeInterval()
        }
        pen.beginWork(at: now)
        let stride = pen.stride(kind)
        return _WorkRun(kind: kind, threshold: thresholdNanoseconds, start: now, stride: stride, recording: true)
    }

    /// One piece of a run has run; `site` is where it came from (kept for the run's attribution). Every
    /// ``_WorkRun/stride`` pieces, reads the clock and closes the window.
    @inline(__always)
    package func ran(_ run: inout _WorkRun, site: LoopSite?) {
        guard run.recording else { return }
        pen.keepSite(site, at: run.stride - run.countdown)
        run.countdown &-= 1
        if run.countdown == 0 { closeWindow(&run, posts: nil) }
    }

    /// One posted job of a run has run. Its site stays in its slot: a slow window reads the sites back from there.
    @inline(__always)
    func ranPost(_ run: inout _WorkRun, from posts: _JobQueue) {
        run.countdown &-= 1
        if run.countdown == 0 { closeWindow(&run, posts: posts) }
    }

    /// The run is over at `now` (its probe's clock read): closes its last window and adds the phase's time to the
    /// iteration. For a post run, pass the queue (its sites are read from the slots).
    func endRun(_ run: inout _WorkRun, posts: _JobQueue?, at now: UInt64) {
        guard run.recording else { return }
        let length = run.stride - run.countdown
        if length > 0 {
            run.stride = length
            run.countdown = 0
            closeWindow(&run, posts: posts, at: now)
        }
        pen.setStride(run.nextStride, for: run.kind)
        pen.addPhase(run.kind, nanoseconds: run.windowStart &- run.start, pieces: run.pieces, endingAt: run.windowStart)
    }

    /// Closes a window at `now` (read here when the run goes on past it): records the window if it was slow, and
    /// picks the next stride. The window's sites are in `posts`' slots for a post run, in the pen for any other.
    @inline(never)
    private func closeWindow(_ run: inout _WorkRun, posts: _JobQueue?, at now: UInt64? = nil) {
        let now = now ?? clock()
        let length = run.stride
        let elapsed = now &- run.windowStart
        run.pieces &+= length
        if elapsed >= run.threshold {
            recordSlowWork(run.kind, elapsed: elapsed, length: length, posts: posts, at: now)
            run.nextStride = 1
        } else if elapsed / UInt64(length) >= Self.timeEachAbove {
            run.nextStride = 1
        } else {
            run.nextStride = min(length * 2, Self.longestRun)
        }
        run.windowStart = now
        run.stride = run.nextStride
        run.countdown = run.nextStride
    }

    private func recordSlowWork(
        _ kind: WorkKind,
        elapsed: UInt64,
        length: Int,
        posts: _JobQueue?,
        at now: UInt64
    ) {
        var first: LoopSite?
        var distinct: [LoopSite] = []
        // A post's site is in its slot, as long as the loop's current block holds it: the window's first job is
        // `length` positions behind the loop.
        let readable = posts?.readInCurrentBlock ?? 0
        for index in 0..<length {
            let site: LoopSite?
            if let posts {
                site = length - index <= readable ? posts.siteBehind(length - index) : nil
            } else {
                site = pen.site(at: index)
            }
            guard let site else { continue }
            if first == nil { first = site }
            if !distinct.contains(where: { $0.isSameLiteral(as: site) }) { distinct.append(site) }
        }
        let words = first?.words ?? (0, 0, 0)
        let header =
            RecordKind.slowWork.rawValue | UInt64(kind.code) << 8 | UInt64(min(length, 0xFFFF)) << 16
            | UInt64(min(distinct.count, 0xFFFF)) << 32 | (first == nil ? 0 : 1) << 48
        ringForWriting().write(time: now, header, elapsed, words.0, words.1, words.2, 0)
    }

    // MARK: Iterations

    /// When the loop's last phase that ran work ended (its clock, nanoseconds). Loop only.
    var lastWorkEnd: UInt64 { pen.lastWorkEnd }

    /// The loop is about to wait: the next work it runs counts a wake-up.
    @inline(__always)
    package func willWait() {
        pen.woke = true
    }

    /// The iteration is over: counts it in the delay histogram and the current interval, and writes the interval
    /// once it spans 10 ms. Reads no clock: it uses the time the iteration's last phase ended.
    @inline(__always)
    package func endIteration() {
        guard pen.iterationHadWork else { return }
        endBusyIteration()
    }

    @inline(never)
    private func endBusyIteration() {
        let busy = pen.iterationBusy
        let end = pen.lastWorkEnd
        histogram.record(busy, now: end)
        pen.closeIteration()
        if end &- pen.intervalStart >= Self.intervalNanoseconds { writeInterval() }
    }

    /// Writes the interval summed so far, if it holds any iteration.
    func writeInterval() {
        guard pen.iterations > 0 else { return }
        let span = pen.lastWorkEnd &- pen.intervalStart
        func micro(_ nanoseconds: UInt64) -> UInt64 { min(nanoseconds / 1_000, 0xFFFF_FFFF) }
        func pair(_ high: UInt64, _ low: UInt64) -> UInt64 { min(high, 0xFFFF_FFFF) << 32 | min(low, 0xFFFF_FFFF) }
        ringForWriting().write(
            time: pen.lastWorkEnd,
            RecordKind.interval.rawValue | min(pen.iterations, 0xFF_FFFF) << 8 | min(pen.wakeUps, 0xFFFF_FFFF) << 32,
            pair(micro(span), micro(pen.longest)),
            // Main-queue drains run in the post phase (owner mode): their time is the phase's.
            pair(
                micro(pen.phaseNanoseconds[WorkKind.timer.code]),
                micro(pen.phaseNanoseconds[WorkKind.post.code] &+ pen.phaseNanoseconds[WorkKind.mainQueue.code])
            ),
            pair(micro(pen.phaseNanoseconds[WorkKind.settle.code]), micro(pen.phaseNanoseconds[WorkKind.idle.code])),
            pair(pen.counts[WorkKind.post.code], pen.counts[WorkKind.timer.code]),
            pair(pen.counts[WorkKind.settle.code], 0)
        )
        pen.resetInterval()
    }

    // MARK: Decoding (any thread)

    /// The event a ring record holds.
    package static func event(from record: _RecorderRing.Record) -> Event? {
        let (w2, w3, w4, w5, w6, w7) = record.payload
        func high(_ word: UInt64) -> Int { Int(word >> 32) }
        func low(_ word: UInt64) -> Int { Int(word & 0xFFFF_FFFF) }
        func micro(_ value: Int) -> Duration { .microseconds(value) }
        switch RecordKind(rawValue: w2 & 0xFF) {
        case .interval:
            let interval = Interval(
                span: micro(high(w3)),
                iterations: Int((w2 >> 8) & 0xFF_FFFF),
                wakeUps: Int(w2 >> 32),
                timers: micro(high(w4)),
                posts: micro(low(w4)),
                settle: micro(high(w5)),
                idle: micro(low(w5)),
                longestIteration: micro(low(w3)),
                postsRun: high(w6),
                timersFired: low(w6),
                settleDeliveries: high(w7)
            )
            return Event(nanoseconds: record.time, kind: .interval(interval))
        case .slowWork:
            guard let kind = WorkKind(code: Int((w2 >> 8) & 0xFF)) else { return nil }
            let work = SlowWork(
                kind: kind,
                site: (w2 >> 48) & 1 == 1 ? LoopSite(words: (w4, w5, w6)) : nil,
                duration: .nanoseconds(Int64(min(w3, UInt64(Int64.max)))),
                runLength: Int((w2 >> 16) & 0xFFFF),
                sitesInRun: Int((w2 >> 32) & 0xFFFF)
            )
            return Event(nanoseconds: record.time, kind: .slowWork(work))
        case nil:
            return nil
        }
    }
}

/// One phase's run of work of one kind, timed in windows of ``stride`` pieces. A value on the loop's stack: the loop
/// runs one phase at a time.
package struct _WorkRun {
    package let kind: LoopFlightRecorder.WorkKind
    package let threshold: UInt64
    /// When the phase began running work.
    package let start: UInt64
    /// When the open window began (after ``LoopFlightRecorder/endRun(_:posts:)``: when the run ended).
    var windowStart: UInt64
    /// Pieces per window.
    var stride: Int
    /// Pieces left before the window closes.
    var countdown: Int
    /// The stride the next window (or the next run of this kind) starts with.
    var nextStride: Int
    /// Pieces in the windows closed so far.
    var pieces = 0
    /// Whether the recorder was recording when the run began (else nothing is timed).
    let recording: Bool

    init(kind: LoopFlightRecorder.WorkKind, threshold: UInt64, start: UInt64, stride: Int, recording: Bool) {
        self.recording = recording
        self.kind = kind
        self.threshold = threshold
        self.start = start
        windowStart = start
        self.stride = stride
        countdown = stride
        nextStride = stride
    }

    /// A run that records nothing: a phase's before its first piece, or while the recorder is off.
    @inline(__always)
    static var notRecording: _WorkRun {
        _WorkRun(kind: .post, threshold: .max, start: 0, stride: .max, recording: false)
    }
}

extension LoopFlightRecorder.WorkKind {
    /// The kind as a small number, for a record and for the pen's tables.
    package var code: Int {
        switch self {
        case .post: 0
        case .timer: 1
        case .idle: 2
        case .settle: 3
        case .mainQueue: 4
        }
    }

    init?(code: Int) {
        guard code >= 0, code < Self.allCases.count else { return nil }
        self = [.post, .timer, .idle, .settle, .mainQueue][code]
    }
}
