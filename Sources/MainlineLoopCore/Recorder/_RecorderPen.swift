/// What the recorder keeps while the loop runs: the iteration and interval being summed, the strides runs are timed
/// with, the sites of the open window. Plain stored properties, no atomics.
///
/// Not thread-safe: touched only where the loop runs, through `LoopFlightRecorder+Loop.swift`.
package final class _RecorderPen: @unchecked Sendable {
    // @unchecked Sendable: held by the recorder (which crosses threads); used only where the loop runs.

    // Unchecked exclusivity on the stored state below that every iteration touches: it is read and written in place,
    // never held across a call out (the type's comment says what serializes it); the dynamic checks were a measurable
    // part of an iteration (Benchmarks/HISTORY.md, "Speed").
    /// The ring the loop writes (set by the recorder, replaced when its size changes).
    @exclusivity(unchecked) var ring: _RecorderRing?

    // The iteration.
    /// Whether the loop waited since it last ran work: the next work counts a wake-up.
    @exclusivity(unchecked) var woke = true
    /// Whether the iteration ran any work.
    @exclusivity(unchecked) private(set) var iterationHadWork = false
    /// Nanoseconds the iteration spent in phases that ran work.
    @exclusivity(unchecked) private(set) var iterationBusy: UInt64 = 0
    /// When the last phase that ran work ended.
    @exclusivity(unchecked) private(set) var lastWorkEnd: UInt64 = 0

    // The interval.
    /// When the interval's first iteration began running work (meaningful once `intervalStarted`).
    @exclusivity(unchecked) private(set) var intervalStart: UInt64 = 0
    /// Whether an iteration of the interval began.
    @exclusivity(unchecked) private var intervalStarted = false
    @exclusivity(unchecked) private(set) var iterations: UInt64 = 0
    @exclusivity(unchecked) private(set) var wakeUps: UInt64 = 0
    @exclusivity(unchecked) private(set) var longest: UInt64 = 0
    /// Per work kind (`WorkKind.code`): nanoseconds in its phase, pieces run.
    @exclusivity(unchecked) private(set) var phaseNanoseconds = [UInt64](
        repeating: 0,
        count: LoopFlightRecorder.WorkKind.allCases.count
    )
    @exclusivity(unchecked) private(set) var counts = [UInt64](
        repeating: 0,
        count: LoopFlightRecorder.WorkKind.allCases.count
    )

    /// Per work kind: the stride its next run starts with (how many pieces one pair of clock reads times).
    @exclusivity(unchecked) private var strides = [Int](repeating: 1, count: LoopFlightRecorder.WorkKind.allCases.count)
    /// The sites of the open window of a run that is not posts (posts keep theirs in their slots).
    private let sites = UnsafeMutablePointer<LoopSite?>.allocate(capacity: LoopFlightRecorder.longestRun)

    init() {
        sites.initialize(repeating: nil, count: LoopFlightRecorder.longestRun)
    }

    deinit {
        sites.deinitialize(count: LoopFlightRecorder.longestRun)
        sites.deallocate()
    }

    /// A phase begins running work at `now`.
    @inline(__always)
    func beginWork(at now: UInt64) {
        if woke {
            woke = false
            wakeUps &+= 1
        }
        if !iterationHadWork {
            iterationHadWork = true
            if !intervalStarted {
                intervalStarted = true
                intervalStart = now
            }
        }
    }

    @inline(__always)
    func stride(_ kind: LoopFlightRecorder.WorkKind) -> Int { strides[kind.code] }

    @inline(__always)
    func setStride(_ stride: Int, for kind: LoopFlightRecorder.WorkKind) { strides[kind.code] = stride }

    /// Keeps the site of the piece at `index` of the open window.
    @inline(__always)
    func keepSite(_ site: LoopSite?, at index: Int) { sites[index] = site }

    /// The site of the piece at `index` of the window that just closed.
    package func site(at index: Int) -> LoopSite? { sites[index] }

    /// A phase ran `pieces` pieces of `kind` in `nanoseconds`, ending at `end`.
    @inline(__always)
    func addPhase(_ kind: LoopFlightRecorder.WorkKind, nanoseconds: UInt64, pieces: Int, endingAt end: UInt64) {
        iterationBusy &+= nanoseconds
        lastWorkEnd = end
        phaseNanoseconds[kind.code] &+= nanoseconds
        counts[kind.code] &+= UInt64(pieces)
    }

    /// Adds the iteration to the interval and starts the next one.
    func closeIteration() {
        iterations &+= 1
        longest = max(longest, iterationBusy)
        iterationBusy = 0
        iterationHadWork = false
    }

    /// Starts the next interval (after the last one was written).
    func resetInterval() {
        intervalStarted = false
        intervalStart = 0
        iterations = 0
        wakeUps = 0
        longest = 0
        for index in phaseNanoseconds.indices {
            phaseNanoseconds[index] = 0
            counts[index] = 0
        }
    }
}
