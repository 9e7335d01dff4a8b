import Atomics

/// A loop's always-on flight recorder: a fixed-size ring of what the loop did in the last seconds — its iterations
/// (time in each phase, wake-ups), every piece of work slower than a threshold with its site, the stalls the watchdog
/// reported, the drops of named mailboxes — and the loop-delay histogram of the last 10–20 seconds.
///
/// Every loop has one (`MainLoop.flightRecorder`, `EventLoop.flightRecorder`, `TestLoop.flightRecorder`), on from
/// the start: nothing to install, nothing to turn on. Reading it is thread-safe and never stops the loop — a recorder
/// can be read while its loop is stalled, which is when it matters (the inspector, `LoopInspector`, serves it).
///
/// **Bounded.** The ring is ``Settings/capacityBytes`` (256 KiB by default: 4,096 records of 64 bytes) and never grows;
/// iterations are summed into one record per 10 ms of activity, so it holds minutes of an ordinary service and the
/// last seconds of a flooded one. Stalls and mailbox drops are kept beside it, the last 32 of each.
///
/// **Cheap.** Only the loop writes the ring, a record at a time (no lock, no allocation); a job costs the loop one
/// decrement, because jobs are timed in runs (see ``SlowWork``) and a phase reads the clock only when it ran work.
/// `Benchmarks/HISTORY.md` has the figures.
///
/// ```swift
/// for event in MainLoop.main.flightRecorder.events() {
///     if case .slowWork(let work) = event.kind { print(work.site ?? "?", work.duration) }
/// }
/// ```
public final class LoopFlightRecorder: @unchecked Sendable {
    // @unchecked Sendable: `ring` and the note lists are protected by `lock`; `threshold` and `resize` are atomics;
    // `histogram` is thread-safe; the loop-side state (`_RecorderPen`) is touched only where the loop runs.

    /// How big the ring is and what counts as slow.
    ///
    /// `Settings` is a value type; all operations on it are thread-safe.
    public struct Settings: Sendable, Hashable {
        /// The ring's size in bytes: 64 bytes a record, at least 64 records; 256 KiB by default.
        public var capacityBytes: Int
        /// Work that runs at least this long is recorded as ``Kind/slowWork(_:)``; 1 ms by default, at least 1 µs.
        public var slowWorkThreshold: Duration
        /// Whether the loop records. On by default, and meant to stay on; off exists so that its cost can be measured
        /// (`Benchmarks/`): the phases then read no clock and write no record (a job still costs one decrement).
        public var isRecording: Bool

        /// Creates recorder settings.
        ///
        /// - Parameters:
        ///   - capacityBytes: The ring's size in bytes (at least 4 KiB, at most 64 MiB).
        ///   - slowWorkThreshold: What counts as slow work (at least 1 µs).
        ///   - isRecording: Whether the loop records (leave it on).
        public init(
            capacityBytes: Int = 256 * 1024,
            slowWorkThreshold: Duration = .milliseconds(1),
            isRecording: Bool = true
        ) {
            self.capacityBytes = min(max(capacityBytes, 64 * _RecorderRing.recordBytes), 64 * 1024 * 1024)
            self.slowWorkThreshold = max(slowWorkThreshold, .microseconds(1))
            self.isRecording = isRecording
        }
    }

    /// How many stalls and how many mailbox-drop events are kept beside the ring.
    static let notesKept = 32

    private let lock = _Lock()
    private var ring: _RecorderRing
    private var stalls: [Event] = []
    private var drops: [Event] = []
    private var currentSettings: Settings
    /// The stall watchdog's stamp of the loop's running work, while a watchdog watches the loop (for an inspector).
    private var monitor: _StallMonitor?
    /// The slow-work threshold in nanoseconds, read by the loop at the start of each phase.
    private let threshold: UnsafeAtomic<UInt64>
    /// Set when new settings changed the ring's size: the loop replaces its ring at its next record.
    private let resize = UnsafeAtomic<Bool>.create(false)
    /// ``Settings/isRecording``, read by the loop at the start of each phase.
    private let recording: UnsafeAtomic<Bool>
    let histogram = _DelayHistogram()
    /// The loop's clock, in nanoseconds.
    package let clock: @Sendable () -> UInt64
    /// The loop-side state: where the loop runs only.
    let pen: _RecorderPen

    /// A recorder for a loop whose clock is `clock`.
    package init(settings: Settings = Settings(), clock: @escaping @Sendable () -> UInt64) {
        currentSettings = settings
        ring = _RecorderRing(bytes: settings.capacityBytes)
        threshold = .create(UInt64(settings.slowWorkThreshold.mainlineNanoseconds))
        recording = .create(settings.isRecording)
        self.clock = clock
        pen = _RecorderPen()
        pen.ring = ring
    }

    deinit {
        threshold.destroy()
        resize.destroy()
        recording.destroy()
    }

    /// The recorder's settings. Thread-safe: a new threshold applies from the loop's next phase; a new size replaces
    /// the ring (and what it held) at the loop's next record.
    public var settings: Settings {
        get { lock.withLock { currentSettings } }
        set {
            lock.withLock {
                let resized = newValue.capacityBytes != currentSettings.capacityBytes
                currentSettings = newValue
                threshold.store(UInt64(newValue.slowWorkThreshold.mainlineNanoseconds), ordering: .relaxed)
                recording.store(newValue.isRecording, ordering: .relaxed)
                if resized { resize.store(true, ordering: .releasing) }
            }
        }
    }

    /// Whether the loop records. Thread-safe.
    @inline(__always)
    var isRecording: Bool { recording.load(ordering: .relaxed) }

    /// The slow-work threshold in nanoseconds. Thread-safe.
    @inline(__always)
    var thresholdNanoseconds: UInt64 { threshold.load(ordering: .relaxed) }

    // MARK: Reading (any thread)

    /// Everything the recorder holds, oldest first: the ring's records, the stalls and the mailbox drops, merged by
    /// time. Thread-safe; never blocks the loop.
    ///
    /// - Complexity: O(n log n) in the records held.
    public func events() -> [Event] {
        let (ring, notes) = lock.withLock { (self.ring, stalls + drops) }
        var events = ring.read().compactMap(Self.event(from:))
        events.append(contentsOf: notes)
        // Stable: records of one time keep their writing order.
        return events.enumerated().sorted { ($0.element.nanoseconds, $0.offset) < ($1.element.nanoseconds, $1.offset) }
            .map(\.element)
    }

    /// The last stalls the watchdog reported, oldest first (at most 32), each with its ``LoopStall/total`` once the
    /// watchdog has seen it end. Thread-safe.
    public var stallsKept: [LoopStall] {
        lock.withLock {
            stalls.compactMap { if case .stall(let stall) = $0.kind { stall } else { nil } }
        }
    }

    /// The loop delay of the last 10–20 seconds. Thread-safe.
    public var delay: LoopDelay {
        let (counts, longest) = histogram.read()
        return LoopDelay(
            buckets: counts.enumerated().map { index, count in
                LoopDelay.Bucket(
                    upTo: _DelayHistogram.upperBound(index).map { .nanoseconds(Int64($0)) },
                    count: count
                )
            },
            longest: .nanoseconds(Int64(min(longest, UInt64(Int64.max))))
        )
    }

    /// How many records the ring holds at most (with the current ``settings``). Thread-safe.
    public var capacity: Int { lock.withLock { max(64, currentSettings.capacityBytes / _RecorderRing.recordBytes) } }

    /// The stall watchdog's stamp of the running work, while one watches the loop. Thread-safe.
    var monitorForInspection: _StallMonitor? {
        get { lock.withLock { monitor } }
        set { lock.withLock { monitor = newValue } }
    }

    // MARK: Notes (any thread)

    /// Keeps a stall the watchdog reported. Called on the watchdog's thread.
    package func keep(_ stall: LoopStall, at nanoseconds: UInt64) {
        lock.withLock { Self.append(Event(nanoseconds: nanoseconds, kind: .stall(stall)), to: &stalls) }
    }

    /// Writes `total` into the kept report of the stall of `kind` that began at `start` (nanoseconds on the loop's
    /// clock), once the watchdog has seen it end. Called on the watchdog's thread; a report no longer kept (32 later
    /// stalls replaced it) is left alone.
    package func keepTotal(_ total: Duration, ofStallStartedAt start: UInt64, kind: LoopStall.Kind) {
        lock.withLock {
            guard
                let index = stalls.lastIndex(where: {
                    if case .stall(let stall) = $0.kind {
                        stall.startNanoseconds == start && stall.kind == kind
                    } else {
                        false
                    }
                }),
                case .stall(var stall) = stalls[index].kind
            else { return }
            stall.total = total
            stalls[index].kind = .stall(stall)
        }
    }

    /// Keeps the drops of a named mailbox. Called where the loop runs.
    func keepDrops(of mailbox: String, count: Int, at nanoseconds: UInt64) {
        lock.withLock {
            Self.append(
                Event(nanoseconds: nanoseconds, kind: .mailboxDrops(mailbox: mailbox, count: count)),
                to: &drops
            )
        }
    }

    private static func append(_ event: Event, to list: inout [Event]) {
        if list.count == notesKept { list.removeFirst() }
        list.append(event)
    }

    // MARK: The loop's ring

    /// The ring the loop writes: replaced first when new settings resized it. Loop only.
    @inline(__always)
    func ringForWriting() -> _RecorderRing {
        if resize.load(ordering: .relaxed) { replaceRing() }
        return pen.ring!
    }

    @inline(never)
    private func replaceRing() {
        lock.withLock {
            resize.store(false, ordering: .relaxed)
            ring = _RecorderRing(bytes: currentSettings.capacityBytes)
            pen.ring = ring
        }
    }
}
